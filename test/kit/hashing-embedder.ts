import type { Embedder } from '../../packages/core/src/index.ts';
import { tokenize } from '../../packages/core/src/search/tokenize.ts';
import { mulberry32 } from './mulberry32.ts';

/** How {@link hashingEmbedder} embeds, and what it does besides. */
export interface HashingEmbedderOptions {
  /** Dimensions of every vector (default 64). */
  dimension?: number;
  /** The model's id (default `test-hashing-<dimension>`): what stored vectors are filed under. */
  modelId?: string;
  /**
   * Two embedding spaces side by side, like the bundled embedder's English and Chinese
   * models: a text with Han characters is hashed into the last `hanDimensions` dimensions,
   * any other text into the first `dimension - hanDimensions` (the other block stays zero).
   */
  hanDimensions?: number;
  /**
   * One {@link textVector} per whole text instead of token hashing: no two texts alike, the
   * same text always the same vector (for benchmarks that measure storage, not meaning).
   */
  perText?: boolean;
  /** Called with each batch before it is embedded (also when {@link failWith} is set): counts or records calls. */
  onEmbed?: (texts: readonly string[]) => void;
  /** Every batch fails with an `Error` of this message: a model that fell over. */
  failWith?: string;
}

/** 32-bit FNV-1a of a string's UTF-16 code units. */
function fnv1a(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * A token's bucket of `n` (its FNV-1a hash modulo `n`): where {@link hashingEmbedder}, and
 * toy embedders built on the same idea, put a token.
 */
export function tokenBucket(token: string, n: number): number {
  return fnv1a(token) % n;
}

/**
 * A seeded random unit vector of `dimension` numbers for a text (its FNV-1a hash seeds
 * {@link mulberry32}): for other libraries' embedder hooks in benchmarks, which take plain arrays.
 */
export function textVector(text: string, dimension: number): number[] {
  const random = mulberry32(fnv1a(text));
  const v = Array.from({ length: dimension }, () => random() * 2 - 1);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

/**
 * A tiny deterministic embedder for tests and benchmarks, no model files: each of core's
 * tokens of a text adds 1 to its {@link tokenBucket} (feature hashing). Texts sharing words
 * point the same way; a text without tokens gets a zero vector, which recall must treat as
 * "not embeddable".
 */
export function hashingEmbedder(options: HashingEmbedderOptions = {}): Embedder {
  const dimension = options.dimension ?? 64;
  const han = options.hanDimensions ?? 0;
  const other = dimension - han;
  return {
    modelId: options.modelId ?? `test-hashing-${dimension}`,
    dimension,
    async embed(texts) {
      options.onEmbed?.(texts);
      if (options.failWith !== undefined) throw new Error(options.failWith);
      if (options.perText) return texts.map((text) => Float32Array.from(textVector(text, dimension)));
      return texts.map((text) => {
        const vector = new Float32Array(dimension);
        const inHan = han > 0 && /\p{Script=Han}/u.test(text);
        for (const token of tokenize(text)) vector[inHan ? other + tokenBucket(token, han) : tokenBucket(token, other)]! += 1;
        return vector;
      });
    },
  };
}
