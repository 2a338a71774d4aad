import { resolve } from 'node:path';
import type { Embedder } from '@zeromem/core';

/**
 * The service's embedder from `--embedder`: `bundled` (the default: the offline
 * `zeromem-static-en` model of `@zeromem/embed-transformers`, recall is hybrid), `none`
 * (BM25 only), or a path to a local model folder (config.json, tokenizer.json,
 * onnx/model.onnx). Nothing is ever downloaded.
 * @throws ZeromemError EMBEDDER_UNAVAILABLE when the model cannot be loaded
 */
export async function loadEmbedder(choice: string): Promise<Embedder | undefined> {
  if (choice === 'none') return undefined;
  // Loaded on demand: `--embedder none` starts without the ONNX runtime.
  const { createTransformersEmbedder } = await import('@zeromem/embed-transformers');
  return createTransformersEmbedder(choice === 'bundled' ? {} : { modelPath: resolve(choice) });
}
