import { tokenize, type Embedder } from '../src/index.ts';

/**
 * A tiny deterministic embedder for core's tests: each token hashed into one of 64
 * dimensions (feature hashing). Texts sharing words point the same way; a text without
 * tokens gets a zero vector, which recall must treat as "not embeddable".
 */
export function hashingEmbedder(options: { dimension?: number; onEmbed?: (texts: readonly string[]) => void } = {}): Embedder {
  const dimension = options.dimension ?? 64;
  return {
    modelId: `test-hashing-${dimension}`,
    dimension,
    async embed(texts) {
      options.onEmbed?.(texts);
      return texts.map((text) => {
        const vector = new Float32Array(dimension);
        for (const token of tokenize(text)) {
          let h = 2166136261;
          for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), 16777619);
          vector[(h >>> 0) % dimension]! += 1;
        }
        return vector;
      });
    },
  };
}
