import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { embedderUnavailable, messageOf } from '../errors.ts';
import type { FeatureExtractor } from '../pipeline-embedder.ts';
import { readTokenizerJson, staticTokenizerFrom } from '../static-tokenizer.ts';
import { readOnnxGraph } from './onnx-graph.ts';

/** The operators of the int8 lookup graph scripts/static-graph.ts writes, in order. */
const LOOKUP_GRAPH = ['Gather', 'Cast', 'Gather', 'Cast', 'Mul', 'Unsqueeze', 'Mul'].join();
const INT8 = 3;
const FLOAT = 1;

/**
 * A static embedding model's folder (config.json `zeromem.kind: "static-embedding"`, as
 * scripts/build-static-model.ts writes it) run in plain JavaScript: its ONNX graph is a
 * table lookup (int8 rows, one float scale per row: `last_hidden_state[t] = row[id] *
 * scale[id]` for each token the mask keeps), so the table is read from onnx/model.onnx and
 * looked up here, with the same float32 arithmetic onnxruntime does (the vectors are
 * identical: test/static-model.test.ts). No ONNX runtime or transformers.js is loaded.
 *
 * Returns undefined for any other folder (a transformer model, or a static model in a
 * shape this runner does not reproduce exactly): transformers.js runs those.
 * @throws ZeromemError EMBEDDER_UNAVAILABLE when a static model's files cannot be read
 */
export function loadStaticModel(folder: string): FeatureExtractor | undefined {
  const configFile = join(folder, 'config.json');
  if (!existsSync(configFile)) return undefined;
  try {
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as { zeromem?: { kind?: string } };
    if (config.zeromem?.kind !== 'static-embedding') return undefined;
    const graph = readOnnxGraph(readFileSync(join(folder, 'onnx', 'model.onnx')));
    const table = graph.initializers.get('embeddings_int8');
    const scales = graph.initializers.get('row_scale');
    if (graph.opTypes.join() !== LOOKUP_GRAPH || table?.dataType !== INT8 || scales?.dataType !== FLOAT || table.dims.length !== 2 || scales.dims.length !== 1) return undefined;
    const [vocabSize, width] = table.dims as [number, number];
    if (scales.dims[0] !== vocabSize || table.raw.length !== vocabSize * width || scales.raw.length !== vocabSize * 4) return undefined;
    const settings = JSON.parse(readFileSync(join(folder, 'tokenizer_config.json'), 'utf8')) as { model_max_length?: number };
    const tokenizer = staticTokenizerFrom(readTokenizerJson(readFileSync(join(folder, 'tokenizer.json'), 'utf8')), settings.model_max_length ?? Infinity);
    if (!tokenizer) return undefined;
    const rows = new Int8Array(table.raw.buffer, table.raw.byteOffset, table.raw.length);
    // A copy: a Float32Array view needs 4-byte alignment, which a protobuf field does not have.
    const scale = new Float32Array(new Uint8Array(scales.raw).buffer);
    return lookupExtractor(tokenizer, rows, scale, vocabSize, width);
  } catch (err) {
    throw embedderUnavailable(`Could not read the static model in ${folder}: ${messageOf(err)}. Reinstall @zeromem/embed-transformers (or rebuild the model folder).`, err);
  }
}

/** The tokenizer and the lookup as a {@link FeatureExtractor}, so the embedder around it is the one every model has. */
function lookupExtractor(tokenizer: NonNullable<ReturnType<typeof staticTokenizerFrom>>, rows: Int8Array, scale: Float32Array, vocabSize: number, width: number): FeatureExtractor {
  const tokenize = (texts: string[]) => {
    const batch = tokenizer.encodeBatch(texts);
    const dims = [batch.rows, batch.length];
    return { input_ids: { dims, type: 'int32', data: batch.ids }, attention_mask: { dims, type: 'uint8', data: batch.mask } };
  };
  return {
    tokenizer: Object.assign(tokenize, { all_special_ids: tokenizer.all_special_ids, model: tokenizer.model }),
    sumTokens(inputs) {
      const ids = inputs.input_ids.data as Int32Array;
      const mask = inputs.attention_mask.data as Uint8Array;
      const [batch, length] = inputs.input_ids.dims as [number, number];
      const sums = new Float32Array(batch * width);
      for (let row = 0; row < batch; row++) {
        const into = row * width;
        for (let t = row * length; t < (row + 1) * length; t++) {
          const id = ids[t]!;
          if (!mask[t] || id < 0 || id >= vocabSize) continue;
          const weight = scale[id]!;
          const from = id * width;
          // Token by token in order, each product rounded to float32 before it is added, as
          // onnxruntime's Mul and then the float32 pooling loop do: the same bits.
          for (let k = 0; k < width; k++) sums[into + k] = sums[into + k]! + Math.fround(rows[from + k]! * weight);
        }
      }
      return { sums, width };
    },
    async model(inputs) {
      const ids = inputs.input_ids!.data as Int32Array;
      const mask = inputs.attention_mask!.data as Uint8Array;
      const [batch, length] = inputs.input_ids!.dims as [number, number];
      const hidden = new Float32Array(batch * length * width);
      for (let t = 0; t < ids.length; t++) {
        const id = ids[t]!;
        if (!mask[t] || id < 0 || id >= vocabSize) continue;
        const weight = scale[id]!;
        if (weight === 0) continue;
        const from = id * width;
        const to = t * width;
        // float32(int8) * float32 weight, rounded to float32: onnxruntime's Cast then Mul.
        for (let k = 0; k < width; k++) hidden[to + k] = rows[from + k]! * weight;
      }
      return { last_hidden_state: { dims: [batch, length, width], type: 'float32', data: hidden } };
    },
  };
}
