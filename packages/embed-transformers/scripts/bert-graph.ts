// A BERT encoder (the Hugging Face `BertModel` layout, as in sentence-transformers'
// all-MiniLM-L6-v2) as an ONNX graph of standard opset-17 operators, from the weights of a
// safetensors file: embeddings (word + position + token type 0) and LayerNormalization,
// then per layer self-attention (MatMul, Softmax over a masked scaled product), residual +
// LayerNormalization, a GELU (erf) feed-forward, residual + LayerNormalization ->
// `last_hidden_state` [batch, sequence, hidden]. Pooling and normalising happen outside
// (the embedder's mean pooling), as for every model transformers.js runs.
//
// fp16 weights stay fp16 in the file (half the size) behind a Cast to float: onnxruntime
// folds the casts when the session loads, so it computes in fp32. Linear weights are
// stored transposed ([in, out]) so that each projection is one MatMul.
//
// `quantize: true` writes the 8-bit graph instead: every linear weight is int8 with one
// scale per output column, and each projection quantizes its input per token (uint8 over
// the token's own range; see `linear`) -> MatMulInteger -> Cast -> times both scales, plus
// the min's share and the bias; the word-embedding rows are int8 with one scale per row.
// Attention products, softmax, GELU and LayerNormalization stay float. Half the fp16 file;
// a short query ~2-3x quicker than the fp32 graph (MODEL.md). (onnxruntime's own dynamic
// quantization, DynamicQuantizeLinear, has one scale per batch tensor: measured, a text's
// vector then changed with its batch-mates and strayed further from fp32.)
import { DataType, encodeModel, rawBytes, type NodeDef, type TensorInit } from './onnx-proto.ts';

/** The fields of a Hugging Face BERT `config.json` the graph needs. */
export interface BertConfig {
  hidden_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  intermediate_size: number;
  layer_norm_eps: number;
  hidden_act: string;
  model_type: string;
}

/** One tensor of a safetensors file. */
export interface SafeTensor {
  dtype: string;
  shape: number[];
  bytes: Uint8Array;
}

/**
 * Reads a safetensors file: an 8-byte little-endian header length, a JSON header of
 * `{ name: { dtype, shape, data_offsets } }`, then the data.
 */
export function readSafetensors(file: Uint8Array): Map<string, SafeTensor> {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  if (headerLength > file.length - 8) throw new Error('not a safetensors file: header longer than the file');
  const header = JSON.parse(new TextDecoder().decode(file.subarray(8, 8 + headerLength))) as Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>;
  const data = 8 + headerLength;
  const tensors = new Map<string, SafeTensor>();
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [start, end] = entry.data_offsets;
    tensors.set(name, { dtype: entry.dtype, shape: entry.shape, bytes: file.subarray(data + start, data + end) });
  }
  return tensors;
}

/** The raw fp16 values of a tensor, checked for its shape. */
function f16(tensors: Map<string, SafeTensor>, name: string, shape: number[]): Uint16Array {
  const t = tensors.get(name);
  if (!t) throw new Error(`weights: ${name} is missing`);
  if (t.dtype !== 'F16') throw new Error(`weights: ${name} is ${t.dtype}, expected F16`);
  if (t.shape.join() !== shape.join()) throw new Error(`weights: ${name} has shape [${t.shape}], expected [${shape}]`);
  const copy = new Uint8Array(t.bytes); // aligned copy
  return new Uint16Array(copy.buffer, 0, copy.length / 2);
}

/** The float value of an IEEE half-precision bit pattern. */
function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/**
 * Symmetric int8 of a [rows, cols] fp16 matrix with one scale per group: per column
 * (`by: 'column'`, for a MatMul's [in, out] weight) or per row (`by: 'row'`, for embedding
 * rows). Scale = max |value| / 127, so 0 stays exactly 0.
 */
function quantizeInt8(a: Uint16Array, rows: number, cols: number, by: 'row' | 'column'): { values: Int8Array; scales: Float32Array } {
  const groups = by === 'row' ? rows : cols;
  const scales = new Float32Array(groups);
  const group = (r: number, c: number) => (by === 'row' ? r : c);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const g = group(r, c);
      scales[g] = Math.max(scales[g]!, Math.abs(halfToFloat(a[r * cols + c]!)));
    }
  }
  for (let g = 0; g < groups; g++) scales[g] = scales[g]! / 127 || 1;
  const values = new Int8Array(a.length);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) values[r * cols + c] = Math.round(halfToFloat(a[r * cols + c]!) / scales[group(r, c)]!);
  }
  return { values, scales };
}

/** Each column's sum of an int8 [rows, cols] matrix times the column's scale: the float sums of the weights as the graph uses them. */
function columnSums(values: Int8Array, scales: Float32Array, rows: number, cols: number): number[] {
  const sums = new Array<number>(cols).fill(0);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) sums[c] += values[r * cols + c]!;
  return sums.map((sum, c) => sum * scales[c]!);
}

/** [rows, cols] -> [cols, rows]. */
function transpose(a: Uint16Array, rows: number, cols: number): Uint16Array {
  const out = new Uint16Array(a.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = a[r * cols + c]!;
  return out;
}

/**
 * The ONNX model (opset 17) of a BERT encoder. Inputs `input_ids` and `attention_mask`
 * (int64 [batch, sequence]); every token has token type 0 (one sentence per text).
 * @throws Error when a weight is missing or has another shape or type
 */
export function encodeBertModel(tensors: Map<string, SafeTensor>, config: BertConfig, docString: string, options: { quantize?: boolean } = {}): Uint8Array {
  const quantize = options.quantize ?? false;
  if (config.model_type !== 'bert' || config.hidden_act !== 'gelu') throw new Error(`config: expected a BERT model with gelu, got ${config.model_type} / ${config.hidden_act}`);
  const hidden = config.hidden_size;
  const heads = config.num_attention_heads;
  const headSize = hidden / heads;
  if (!Number.isInteger(headSize)) throw new Error('config: hidden_size is not a multiple of num_attention_heads');
  const inner = config.intermediate_size;
  const nodes: NodeDef[] = [];
  const initializers: TensorInit[] = [];
  let counter = 0;
  const node = (opType: string, inputs: string[], attributes?: NodeDef['attributes'], output?: string): string => {
    const out = output ?? `${opType.toLowerCase()}_${counter++}`;
    nodes.push({ opType, inputs, outputs: [out], name: `${out}_node`, ...(attributes ? { attributes } : {}) });
    return out;
  };
  /** An int8 [rows, cols] weight and its float scales (`scaleDims` long), stored as they are. */
  const int8 = (name: string, data: Uint16Array, rows: number, cols: number, by: 'row' | 'column', scaleDims: number[]) => {
    const { values, scales } = quantizeInt8(data, rows, cols, by);
    initializers.push({ name: `${name}.int8`, dataType: DataType.INT8, dims: [rows, cols], raw: rawBytes(values) });
    initializers.push({ name: `${name}.scale`, dataType: DataType.FLOAT, dims: scaleDims, raw: rawBytes(scales) });
    return { values: `${name}.int8`, scales: `${name}.scale`, int8: values, scaleValues: scales };
  };
  /** An fp16 weight in the file, cast to float in the graph. */
  const weight = (name: string, shape: number[], data: Uint16Array): string => {
    initializers.push({ name: `${name}.fp16`, dataType: DataType.FLOAT16, dims: shape, raw: rawBytes(data) });
    return node('Cast', [`${name}.fp16`], [{ name: 'to', int: DataType.FLOAT }], name);
  };
  const constant = (name: string, dataType: typeof DataType.FLOAT | typeof DataType.INT64, dims: number[], values: number[]): string => {
    initializers.push({ name, dataType, dims, raw: rawBytes(dataType === DataType.FLOAT ? Float32Array.from(values) : BigInt64Array.from(values.map(BigInt))) });
    return name;
  };
  const vector = (name: string, size: number) => weight(name, [size], f16(tensors, name, [size]));
  /** A PyTorch Linear ([out, in] weight + bias) applied to `x`. */
  const linear = (x: string, prefix: string, input: number, output: number): string => {
    const transposed = transpose(f16(tensors, `${prefix}.weight`, [output, input]), output, input);
    if (!quantize) return node('Add', [node('MatMul', [x, weight(`${prefix}.weight`, [input, output], transposed)]), vector(`${prefix}.bias`, output)]);
    const w = int8(`${prefix}.weight`, transposed, input, output, 'column', [output]);
    // Each token's activations to uint8 over its own range: u = x - min, scale = (max - min)
    // / 255, so a token's vector never depends on the other texts of its batch (one scale per
    // tensor, as DynamicQuantizeLinear has, made a text's vector change with its batch-mates'
    // padding). x.W = u.W + min * (column sums of W): the second term is a float constant
    // per column times the token's min.
    const low = node('ReduceMin', [x], [{ name: 'axes', ints: [-1] }, { name: 'keepdims', int: 1 }]);
    const shifted = node('Sub', [x, low]);
    const tokenScale = node('Max', [node('Div', [node('ReduceMax', [shifted], [{ name: 'axes', ints: [-1] }, { name: 'keepdims', int: 1 }]), uint8Max]), tiny]);
    const xq = node('Cast', [node('Round', [node('Div', [shifted, tokenScale])])], [{ name: 'to', int: DataType.UINT8 }]);
    const product = node('Cast', [node('MatMulInteger', [xq, w.values])], [{ name: 'to', int: DataType.FLOAT }]);
    const sums = constant(`${prefix}.weight.column_sums`, DataType.FLOAT, [output], columnSums(w.int8, w.scaleValues, input, output));
    return node('Add', [node('Add', [node('Mul', [node('Mul', [product, w.scales]), tokenScale]), node('Mul', [low, sums])]), vector(`${prefix}.bias`, output)]);
  };
  const layerNorm = (x: string, prefix: string): string =>
    node('LayerNormalization', [x, vector(`${prefix}.weight`, hidden), vector(`${prefix}.bias`, hidden)], [
      { name: 'axis', int: -1 },
      { name: 'epsilon', float: config.layer_norm_eps },
    ]);

  const one = constant('one', DataType.FLOAT, [], [1]);
  const half = constant('half', DataType.FLOAT, [], [0.5]);
  const sqrt2 = constant('sqrt2', DataType.FLOAT, [], [Math.SQRT2]);
  const masked = constant('masked_bias', DataType.FLOAT, [], [-1e9]);
  const scale = constant('attention_scale', DataType.FLOAT, [], [1 / Math.sqrt(headSize)]);
  const zero = constant('zero_1d', DataType.INT64, [1], [0]);
  const typeZero = constant('type_zero', DataType.INT64, [], [0]);
  // (Only the 8-bit graph reads these: an unused initializer makes onnxruntime warn.)
  const uint8Max = quantize ? constant('uint8_max', DataType.FLOAT, [], [255]) : '';
  const tiny = quantize ? constant('tiny', DataType.FLOAT, [], [1e-12]) : '';
  const splitHeads = constant('split_heads', DataType.INT64, [4], [0, 0, heads, headSize]);
  const joinHeads = constant('join_heads', DataType.INT64, [3], [0, 0, hidden]);

  // Embeddings: word rows + the first `sequence` position rows + token type 0.
  const positions = tensors.get('embeddings.position_embeddings.weight')?.shape[0] ?? 0;
  const vocab = tensors.get('embeddings.word_embeddings.weight')?.shape[0] ?? 0;
  const wordRows = f16(tensors, 'embeddings.word_embeddings.weight', [vocab, hidden]);
  let words: string;
  if (quantize) {
    // int8 rows times their row's scale ([vocab, 1], so a gathered scale broadcasts over the row).
    const rows = int8('embeddings.word_embeddings.weight', wordRows, vocab, hidden, 'row', [vocab, 1]);
    const gathered = node('Cast', [node('Gather', [rows.values, 'input_ids'], [{ name: 'axis', int: 0 }])], [{ name: 'to', int: DataType.FLOAT }]);
    words = node('Mul', [gathered, node('Gather', [rows.scales, 'input_ids'], [{ name: 'axis', int: 0 }])]);
  } else {
    words = node('Gather', [weight('embeddings.word_embeddings.weight', [vocab, hidden], wordRows), 'input_ids'], [{ name: 'axis', int: 0 }]);
  }
  const length = node('Shape', ['input_ids'], [
    { name: 'start', int: 1 },
    { name: 'end', int: 2 },
  ]);
  const position = node('Slice', [weight('embeddings.position_embeddings.weight', [positions, hidden], f16(tensors, 'embeddings.position_embeddings.weight', [positions, hidden])), zero, length, zero]);
  const type = node('Gather', [weight('embeddings.token_type_embeddings.weight', [2, hidden], f16(tensors, 'embeddings.token_type_embeddings.weight', [2, hidden])), typeZero], [{ name: 'axis', int: 0 }]);
  let x = layerNorm(node('Add', [node('Add', [words, position]), type]), 'embeddings.LayerNorm');

  // Padding: -1e9 added to the scores of masked keys, [batch, 1, 1, keys].
  const keep = node('Cast', ['attention_mask'], [{ name: 'to', int: DataType.FLOAT }]);
  const maskBias = node('Unsqueeze', [node('Mul', [node('Sub', [one, keep]), masked]), constant('mask_axes', DataType.INT64, [2], [1, 2])]);

  for (let layer = 0; layer < config.num_hidden_layers; layer++) {
    const p = `encoder.layer.${layer}`;
    const project = (name: string, perm: number[]) => node('Transpose', [node('Reshape', [linear(x, `${p}.attention.self.${name}`, hidden, hidden), splitHeads])], [{ name: 'perm', ints: perm }]);
    const q = project('query', [0, 2, 1, 3]); // [b, h, s, d]
    const k = project('key', [0, 2, 3, 1]); // [b, h, d, s]
    const v = project('value', [0, 2, 1, 3]); // [b, h, s, d]
    const scores = node('Add', [node('Mul', [node('MatMul', [q, k]), scale]), maskBias]);
    const context = node('Reshape', [node('Transpose', [node('MatMul', [node('Softmax', [scores], [{ name: 'axis', int: -1 }]), v])], [{ name: 'perm', ints: [0, 2, 1, 3] }]), joinHeads]);
    const attended = layerNorm(node('Add', [linear(context, `${p}.attention.output.dense`, hidden, hidden), x]), `${p}.attention.output.LayerNorm`);
    const up = linear(attended, `${p}.intermediate.dense`, hidden, inner);
    const gelu = node('Mul', [node('Mul', [up, half]), node('Add', [node('Erf', [node('Div', [up, sqrt2])]), one])]);
    x = layerNorm(node('Add', [linear(gelu, `${p}.output.dense`, inner, hidden), attended]), `${p}.output.LayerNorm`);
  }
  node('Identity', [x], undefined, 'last_hidden_state');

  return encodeModel({
    graphName: 'bert_encoder',
    producerName: 'zeromem convert-bert',
    producerVersion: '1',
    docString,
    irVersion: 8,
    opsetVersion: 17,
    nodes,
    initializers,
    inputs: [
      { name: 'input_ids', elemType: DataType.INT64, shape: ['batch_size', 'sequence_length'] },
      { name: 'attention_mask', elemType: DataType.INT64, shape: ['batch_size', 'sequence_length'] },
    ],
    outputs: [{ name: 'last_hidden_state', elemType: DataType.FLOAT, shape: ['batch_size', 'sequence_length', hidden] }],
  });
}
