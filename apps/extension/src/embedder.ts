/**
 * The on-device embedder: @zeromem/embed-transformers' Web Worker with the bundled model
 * and onnxruntime-web's wasm, all shipped in the extension (see vite.config.ts), so recall
 * is hybrid (words and meaning) with nothing fetched from the network.
 */
import { createWorkerEmbedder, type WorkerEmbedder } from '@zeromem/embed-transformers/browser';

/** Starts the embedder worker and loads the model from the extension's files. */
export function openEmbedder(): Promise<WorkerEmbedder> {
  const worker = new Worker(new URL('./embedder-worker.ts', import.meta.url), { type: 'module' });
  return createWorkerEmbedder({ worker, modelBaseUrl: chrome.runtime.getURL('models/'), wasmPaths: chrome.runtime.getURL('ort/') });
}
