/**
 * The embedder harness page: the SDK page (`window.zeromem`) plus the Web Worker embedder
 * (`window.zeromemEmbed`), with the model and onnxruntime-web wasm files self-hosted by
 * the harness server (test/e2e/embedder-assets.ts).
 */
import './main.ts';
import { createWorkerEmbedder, type WorkerEmbedder, type WorkerEmbedderOptions } from '@zeromem/embed-transformers/browser';
import * as bench from './embed-bench.ts';

/** Where test/e2e/embedder-assets.ts serves the files (kept in sync with EMBEDDER_ASSET_URLS). */
const ASSETS = { modelBaseUrl: '/zeromem-assets/models/', wasmPaths: '/zeromem-assets/ort/' };

/** What `window.zeromemEmbed` holds. */
export interface ZeromemEmbedGlobal {
  /** Starts a worker and loads the bundled model from the harness (overrides allowed). */
  create(overrides?: Partial<WorkerEmbedderOptions>): Promise<WorkerEmbedder>;
  createWorkerEmbedder: typeof createWorkerEmbedder;
  /** A fresh module worker running @zeromem/embed-transformers/worker. */
  newWorker(): Worker;
  assets: typeof ASSETS;
  bench: typeof bench;
}

declare global {
  interface Window {
    zeromemEmbed: ZeromemEmbedGlobal;
  }
}

function newWorker(): Worker {
  return new Worker(new URL('./embedder-worker.ts', import.meta.url), { type: 'module' });
}

window.zeromemEmbed = {
  create: (overrides = {}) => createWorkerEmbedder({ worker: newWorker(), ...ASSETS, ...overrides }),
  createWorkerEmbedder,
  newWorker,
  assets: ASSETS,
  bench,
};
