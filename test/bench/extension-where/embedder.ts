import { createWorkerEmbedder } from '@zeromem/embed-transformers/browser';

/** The extension's embedder: its Web Worker, model and wasm from the extension's files. */
export function openEmbedder() {
  const worker = new Worker(new URL('./embedder-worker.ts', import.meta.url), { type: 'module' });
  return createWorkerEmbedder({ worker, modelBaseUrl: chrome.runtime.getURL('models/'), wasmPaths: chrome.runtime.getURL('ort/') });
}
