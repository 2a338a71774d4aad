import type { Embedder, EmbedKind } from '@zeromem/core';
import { toUnitVector } from '@zeromem/core';
import { embedderUnavailable, messageOf } from './errors.ts';
import type { ModelSettings } from './model-settings.ts';
import { UnknownTokenGuard, type TokenizerVocabulary } from './unknown-tokens.ts';

/** A transformers.js tensor, as far as the embedder reads it. */
interface TensorLike {
  dims: number[];
  type: string;
  data: ArrayLike<number | bigint>;
  to?(type: string): TensorLike;
}

/**
 * The parts of a transformers.js feature-extraction pipeline the embedder uses: its
 * tokenizer and model. (It does not call the pipeline itself: that would tokenize every
 * text a second time for the guard, and its generic pooling loops cost more than the
 * model for a static model.)
 */
export interface FeatureExtractor {
  tokenizer: TokenizerVocabulary & ((texts: string[], options: { padding: boolean; truncation: boolean }) => { input_ids: TensorLike; attention_mask: TensorLike });
  model: (inputs: Record<string, TensorLike>) => Promise<Record<string, TensorLike | undefined>>;
  /**
   * The sum of each row's token vectors ([rows x width]), the same float32 sums mean
   * pooling takes of the model's output, without the [rows x tokens x width] output in
   * between (the static model in plain JavaScript has it: half its time went to that).
   */
  sumTokens?: (inputs: { input_ids: TensorLike; attention_mask: TensorLike }) => { sums: Float32Array; width: number };
}

/** An {@link Embedder} with the model it runs and a way to free it. */
export interface TransformersEmbedder extends Embedder {
  readonly fusionWeight: number;
  /** The model as it was asked for: an id, a name under `localModelPath`, or a folder's name. */
  readonly model: string;
  /** Frees the ONNX session. Later `embed` calls fail with EMBEDDER_UNAVAILABLE. */
  dispose(): Promise<void>;
}

/** Texts tokenized at once (their ids are held padded to the chunk's longest). */
const TOKENIZE_CHUNK = 256;

/**
 * The tokenizer's tensors cut to `rows` (in that order) and their first `width` tokens, as
 * tensors of the same class (the model takes transformers.js tensors).
 */
function rowsOf<T extends Record<string, TensorLike>>(inputs: T, rows: readonly number[], length: number, width: number): T {
  const out: Record<string, TensorLike> = {};
  for (const [key, tensor] of Object.entries(inputs)) {
    const source = tensor.data as unknown as { subarray(from: number, to: number): ArrayLike<number | bigint>; constructor: new (size: number) => { set(values: ArrayLike<number | bigint>, at: number): void } };
    const data = new source.constructor(rows.length * width);
    rows.forEach((row, r) => data.set(source.subarray(row * length, row * length + width), r * width));
    out[key] = new (tensor.constructor as new (type: string, data: unknown, dims: number[]) => TensorLike)(tensor.type, data, [rows.length, width]);
  }
  return out as T;
}

function float32(tensor: TensorLike): Float32Array {
  if (tensor.data instanceof Float32Array) return tensor.data;
  const converted = tensor.to ? tensor.to('float32').data : tensor.data;
  return converted instanceof Float32Array ? converted : Float32Array.from(converted as ArrayLike<number>);
}

/**
 * Wraps a loaded feature-extraction pipeline as an {@link Embedder}: prefixes by kind,
 * batches of similar length, the unknown-token guard (on the ids the model runs on),
 * mean or CLS pooling, and a unit-vector check of every result (zero norm or NaN ->
 * `null`, never a bad vector).
 */
export async function pipelineEmbedder(
  extractor: FeatureExtractor,
  settings: ModelSettings,
  identity: { modelId: string; model: string },
  dispose: () => Promise<void>,
): Promise<TransformersEmbedder> {
  const guard = new UnknownTokenGuard(extractor.tokenizer);
  let disposed = false;
  let dimension = 0;

  /** Pools one model output's rows into `out` at `rows` (mean or CLS, then unit length). */
  const pool = (hidden: TensorLike, mask: ArrayLike<number | bigint>, rows: readonly number[], out: Array<Float32Array | null>) => {
    const [, length, width] = hidden.dims as [number, number, number];
    const data = float32(hidden);
    const pooled = new Float32Array(width);
    rows.forEach((into, row) => {
      pooled.fill(0);
      if (settings.pooling === 'cls') {
        pooled.set(data.subarray(row * length * width, row * length * width + width));
      } else {
        for (let t = 0; t < length; t++) {
          if (!Number(mask[row * length + t])) continue;
          const offset = (row * length + t) * width;
          for (let k = 0; k < width; k++) pooled[k] = pooled[k]! + data[offset + k]!;
        }
      }
      // The mean's divisor does not change the direction: normalizing the sum is the same.
      out[into] = toUnitVector(pooled, width);
    });
    dimension ||= width;
  };

  /**
   * A vector or null per text (`guarded` false: every text is run). The texts are tokenized
   * together; a transformer then runs them in batches of similar word-piece counts, each
   * padded to its own longest row and within `batchTokens` (rows x longest): a batch padded
   * to one long turn ran its short texts at 256 word pieces (1.3-1.5x the real ones on
   * LongMemEval's turns and MADial's memories), and smaller batches cost MiniLM less CPU per
   * word piece (test/bench/minilm-long-turns.ts). A row's vector does not depend on its
   * batch (padding is masked), so batching changes time, not vectors.
   */
  const run = async (texts: string[], guarded = true): Promise<Array<Float32Array | null>> => {
    const inputs = extractor.tokenizer(texts, { padding: true, truncation: true });
    const [rows, length] = inputs.input_ids.dims as [number, number];
    const ids = inputs.input_ids.data;
    const mask = inputs.attention_mask.data;
    const keep = texts.map((_, row) => !guarded || guard.unknownFraction(ids, mask, row * length, length, texts[row]) <= settings.maxUnknownFraction);
    if (!keep.some(Boolean)) return texts.map(() => null);
    if (settings.pooling === 'mean' && extractor.sumTokens) {
      const { sums, width } = extractor.sumTokens(inputs);
      dimension ||= width;
      return keep.map((kept, row) => (kept ? toUnitVector(sums.subarray(row * width, (row + 1) * width), width) : null));
    }
    const counts = keep.map((_, row) => {
      let count = 0;
      for (let t = row * length; t < (row + 1) * length; t++) count += Number(mask[t]);
      return count;
    });
    const order = keep.flatMap((kept, row) => (kept ? [row] : [])).sort((a, b) => counts[a]! - counts[b]!);
    const out: Array<Float32Array | null> = new Array(rows).fill(null);
    for (let start = 0; start < order.length; ) {
      // Ascending counts: the batch's last row is its longest.
      let end = start + 1;
      while (end < order.length && end - start < settings.batchSize && (end - start + 1) * counts[order[end]!]! <= settings.batchTokens) end++;
      const batch = order.slice(start, end);
      const width = counts[order[end - 1]!]!;
      const whole = width === length && batch.length === rows && batch.every((row, i) => row === i);
      const part = whole ? inputs : rowsOf(inputs, batch, length, width);
      const outputs = await extractor.model(part as unknown as Record<string, TensorLike>);
      const hidden = outputs.last_hidden_state ?? outputs.logits ?? outputs.token_embeddings;
      if (!hidden || hidden.dims.length !== 3) throw new Error('the model has no token embeddings output (last_hidden_state) of shape [batch, tokens, dimension]');
      pool(hidden, part.attention_mask.data, batch, out);
      start = end;
    }
    return out;
  };

  try {
    await run(['probe'], false); // learns the dimension
  } catch (err) {
    throw embedderUnavailable(`The model "${identity.model}" loaded but could not embed a text: ${messageOf(err)}`, err);
  }

  /** One vector or null per text, in order; tokenized in chunks of similar length. */
  const embedAll = async (texts: readonly string[], kind: EmbedKind): Promise<Array<Float32Array | null>> => {
    const prefix = kind === 'query' ? settings.queryPrefix : settings.documentPrefix;
    const out: Array<Float32Array | null> = new Array(texts.length).fill(null);
    const todo: number[] = [];
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i];
      if (typeof text === 'string' && text.trim()) todo.push(i);
    }
    // Similar lengths in one chunk: each is padded to its longest text when tokenized.
    todo.sort((a, b) => texts[a]!.length - texts[b]!.length);
    for (let start = 0; start < todo.length; start += TOKENIZE_CHUNK) {
      const chunk = todo.slice(start, start + TOKENIZE_CHUNK);
      let vectors: Array<Float32Array | null>;
      try {
        vectors = await run(chunk.map((i) => prefix + texts[i]!));
      } catch (err) {
        throw embedderUnavailable(`The model "${identity.model}" failed to embed: ${messageOf(err)}`, err);
      }
      chunk.forEach((i, row) => {
        out[i] = vectors[row]!;
      });
    }
    return out;
  };

  const embed = async (texts: readonly string[], kind: EmbedKind): Promise<Array<Float32Array | null>> => {
    if (disposed) throw embedderUnavailable('This embedder was disposed; create a new one.');
    const tail = settings.queryTail;
    // A long query (a whole dialogue) is read from its end: the latest turns.
    if (kind === 'query' && tail !== undefined) return embedAll(texts.map((text) => (typeof text === 'string' && text.length > tail ? text.slice(-tail) : text)), kind);
    return embedAll(texts, kind);
  };

  return {
    modelId: identity.modelId,
    model: identity.model,
    dimension,
    fusionWeight: settings.fusionWeight,
    embed,
    async dispose() {
      disposed = true;
      await dispose();
    },
  };
}
