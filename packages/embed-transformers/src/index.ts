/**
 * @zeromem/embed-transformers — an Embedder on transformers.js (ONNX), offline model
 * loading, and the bundled default static embedding model `zeromem-static-en`.
 *
 * Draft from the embedding research task; the lead integrates it (worker host, browser
 * wasm paths and tests are not here yet).
 */
import { fileURLToPath } from 'node:url';
import type { Embedder, EmbedKind } from '@zeromem/core';
import { toUnitVector } from '@zeromem/core';

/** Name of the bundled default model folder under `models/`. */
export const DEFAULT_MODEL = 'zeromem-static-en';

/** Absolute path of this package's `models/` folder (Node only). */
export function bundledModelsDir(): string {
  return fileURLToPath(new URL('../models/', import.meta.url));
}

export interface TransformersEmbedderOptions {
  /** Model name under `localModelPath` (default: the bundled `zeromem-static-en`). */
  model?: string;
  /** Folder that holds model folders (default: this package's `models/`). */
  localModelPath?: string;
  /** Allow downloads from the model hub (default false: offline only). */
  allowRemoteModels?: boolean;
  /**
   * A text whose word-like tokens are more often unknown than this gets no vector
   * (`null`), so it is found lexically only. Default 0.5. Static models know one language.
   */
  maxUnknownFraction?: number;
  /** Texts per model call (default 32). */
  batchSize?: number;
}

interface Extractor {
  (texts: string[], opts: { pooling: 'mean'; normalize: boolean }): Promise<{ data: Float32Array; dims: number[] }>;
  tokenizer: { tokenize(text: string): string[]; unk_token?: string };
}

/** Creates an Embedder that runs a feature-extraction model through transformers.js, offline by default. */
export async function createTransformersEmbedder(options: TransformersEmbedderOptions = {}): Promise<Embedder> {
  const { pipeline, env } = await import('@huggingface/transformers');
  const model = options.model ?? DEFAULT_MODEL;
  env.allowRemoteModels = options.allowRemoteModels ?? false;
  env.allowLocalModels = true;
  env.localModelPath = options.localModelPath ?? bundledModelsDir();
  const extractor = (await pipeline('feature-extraction', model, {
    local_files_only: !env.allowRemoteModels,
  })) as unknown as Extractor;
  const maxUnknown = options.maxUnknownFraction ?? 0.5;
  const batchSize = options.batchSize ?? 32;
  const unk = extractor.tokenizer.unk_token ?? '[UNK]';
  const probe = await extractor(['probe'], { pooling: 'mean', normalize: true });
  const dimension = probe.dims[1]!;

  const unknownFraction = (text: string): number => {
    const tokens = extractor.tokenizer.tokenize(text).filter((t) => t === unk || /[\p{L}\p{N}]/u.test(t));
    if (!tokens.length) return 1;
    return tokens.filter((t) => t === unk).length / tokens.length;
  };

  return {
    modelId: `transformers.js:${model}`,
    dimension,
    async embed(texts: readonly string[], _kind: EmbedKind): Promise<Array<Float32Array | null>> {
      const out: Array<Float32Array | null> = new Array(texts.length).fill(null);
      const todo: number[] = [];
      texts.forEach((t, i) => {
        if (unknownFraction(t) <= maxUnknown) todo.push(i);
      });
      for (let i = 0; i < todo.length; i += batchSize) {
        const idx = todo.slice(i, i + batchSize);
        const res = await extractor(idx.map((j) => texts[j]!), { pooling: 'mean', normalize: true });
        const d = res.dims[1]!;
        idx.forEach((j, k) => {
          out[j] = toUnitVector(res.data.subarray(k * d, (k + 1) * d), dimension);
        });
      }
      return out;
    },
  };
}
