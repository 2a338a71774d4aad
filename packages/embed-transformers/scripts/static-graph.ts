// The ONNX graph of a static embedding model: a lookup table of int8 rows with one float
// scale per row (the row's max-abs / 127 times its token weight), masked by the attention
// mask -> `last_hidden_state` [batch, seq, dim]. Pooling and normalising happen outside.
import { DataType, encodeModel, rawBytes, type NodeDef, type TensorInit } from './onnx-proto.ts';

/** int8 rows (per-row max-abs scale) of `rows` [vocabSize x dim], each scale times its row's weight; zero rows get scale 0. */
export function quantizeRows(rows: Float32Array, vocabSize: number, dim: number, weight: (row: number) => number): { q: Int8Array; scale: Float32Array } {
  const q = new Int8Array(vocabSize * dim);
  const scale = new Float32Array(vocabSize);
  for (let r = 0; r < vocabSize; r++) {
    let maxAbs = 0;
    for (let j = 0; j < dim; j++) maxAbs = Math.max(maxAbs, Math.abs(rows[r * dim + j]!));
    if (maxAbs === 0) continue;
    const s = maxAbs / 127;
    for (let j = 0; j < dim; j++) q[r * dim + j] = Math.round(rows[r * dim + j]! / s);
    scale[r] = s * weight(r);
  }
  return { q, scale };
}

/** The nodes and tensors of the int8 lookup (inputs `input_ids`, `attention_mask`). */
export function int8LookupGraph(q: Int8Array, scale: Float32Array, vocabSize: number, dim: number): { nodes: NodeDef[]; initializers: TensorInit[] } {
  return {
    initializers: [
      { name: 'embeddings_int8', dataType: DataType.INT8, dims: [vocabSize, dim], raw: rawBytes(q) },
      { name: 'row_scale', dataType: DataType.FLOAT, dims: [vocabSize], raw: rawBytes(scale) },
      { name: 'last_axis', dataType: DataType.INT64, dims: [1], raw: rawBytes(BigInt64Array.from([-1n])) },
    ],
    nodes: [
      { opType: 'Gather', inputs: ['embeddings_int8', 'input_ids'], outputs: ['rows_int8'], name: 'gather_rows', attributes: [{ name: 'axis', int: 0 }] },
      { opType: 'Cast', inputs: ['rows_int8'], outputs: ['rows_f32'], name: 'cast_rows', attributes: [{ name: 'to', int: DataType.FLOAT }] },
      { opType: 'Gather', inputs: ['row_scale', 'input_ids'], outputs: ['token_scale'], name: 'gather_scale', attributes: [{ name: 'axis', int: 0 }] },
      { opType: 'Cast', inputs: ['attention_mask'], outputs: ['mask_f32'], name: 'cast_mask', attributes: [{ name: 'to', int: DataType.FLOAT }] },
      { opType: 'Mul', inputs: ['token_scale', 'mask_f32'], outputs: ['token_weight'], name: 'mask_scale' },
      { opType: 'Unsqueeze', inputs: ['token_weight', 'last_axis'], outputs: ['token_weight_3d'], name: 'unsqueeze_weight' },
      { opType: 'Mul', inputs: ['rows_f32', 'token_weight_3d'], outputs: ['last_hidden_state'], name: 'scale_rows' },
    ],
  };
}

/** The whole model file for a graph (opset 13). */
export function encodeStaticModel(graph: { nodes: NodeDef[]; initializers: TensorInit[] }, dim: number): Uint8Array {
  return encodeModel({
    graphName: 'zeromem_static_embedding',
    producerName: 'zeromem build-static-model',
    producerVersion: '1',
    docString: 'Static word-embedding lookup; mean-pool + L2-normalise outside the graph.',
    irVersion: 7,
    opsetVersion: 13,
    nodes: graph.nodes,
    initializers: graph.initializers,
    inputs: [
      { name: 'input_ids', elemType: DataType.INT64, shape: ['batch_size', 'sequence_length'] },
      { name: 'attention_mask', elemType: DataType.INT64, shape: ['batch_size', 'sequence_length'] },
    ],
    outputs: [{ name: 'last_hidden_state', elemType: DataType.FLOAT, shape: ['batch_size', 'sequence_length', dim] }],
  });
}
