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

  /** One model call: a vector or null per text (`guarded` false: every text is run). */
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
    const outputs = await extractor.model(inputs as unknown as Record<string, TensorLike>);
    const hidden = outputs.last_hidden_state ?? outputs.logits ?? outputs.token_embeddings;
    if (!hidden || hidden.dims.length !== 3) throw new Error('the model has no token embeddings output (last_hidden_state) of shape [batch, tokens, dimension]');
    const width = hidden.dims[2]!;
    const data = float32(hidden);
    const out: Array<Float32Array | null> = new Array(rows).fill(null);
    const pooled = new Float32Array(width);
    for (let row = 0; row < rows; row++) {
      if (!keep[row]) continue;
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
      out[row] = toUnitVector(pooled, width);
    }
    dimension ||= width;
    return out;
  };

  try {
    await run(['probe'], false); // learns the dimension
  } catch (err) {
    throw embedderUnavailable(`The model "${identity.model}" loaded but could not embed a text: ${messageOf(err)}`, err);
  }

  /** One vector or null per text, in order; batches of similar length. */
  const embedAll = async (texts: readonly string[], kind: EmbedKind): Promise<Array<Float32Array | null>> => {
    const prefix = kind === 'query' ? settings.queryPrefix : settings.documentPrefix;
    const out: Array<Float32Array | null> = new Array(texts.length).fill(null);
    const todo: number[] = [];
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i];
      if (typeof text === 'string' && text.trim()) todo.push(i);
    }
    // Similar lengths in one batch: less padding to run through the model.
    todo.sort((a, b) => texts[a]!.length - texts[b]!.length);
    for (let start = 0; start < todo.length; start += settings.batchSize) {
      const batch = todo.slice(start, start + settings.batchSize);
      let vectors: Array<Float32Array | null>;
      try {
        vectors = await run(batch.map((i) => prefix + texts[i]!));
      } catch (err) {
        throw embedderUnavailable(`The model "${identity.model}" failed to embed: ${messageOf(err)}`, err);
      }
      batch.forEach((i, row) => {
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
