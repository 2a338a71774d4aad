/**
 * Opens the app's memory in this renderer: IndexedDB through @zeromem/core, embeddings in a
 * Web Worker (onnxruntime-web) on the bundled model, both served by the app itself from
 * `zeromem-assets/` next to the page. If the embedder cannot start, the memory still
 * opens and recall is lexical (BM25) only; the header says so.
 */
import { openMemory, type Memory } from '@zeromem/core';
import { createWorkerEmbedder, type WorkerEmbedder } from '@zeromem/embed-transformers/browser';

export interface Runtime {
  memory: Memory;
  embedder: WorkerEmbedder | null;
  /** Why there is no embedder, if there is none. */
  embedderProblem: string | null;
}

/** The asset folder URLs, relative to the page (http://127.0.0.1:5173/ or app://zeromem/). */
export function assetUrls(base = document.baseURI): { models: string; wasm: string } {
  return { models: new URL('zeromem-assets/models/', base).href, wasm: new URL('zeromem-assets/ort/', base).href };
}

export async function openRuntime(name = 'zeromem-desktop'): Promise<Runtime> {
  let embedder: WorkerEmbedder | null = null;
  let embedderProblem: string | null = null;
  try {
    const urls = assetUrls();
    const worker = new Worker(new URL('./embedder-worker.ts', import.meta.url), { type: 'module', name: 'zeromem-embedder' });
    embedder = await createWorkerEmbedder({ worker, modelBaseUrl: urls.models, wasmPaths: urls.wasm, timeoutMs: 30_000 });
  } catch (err) {
    embedderProblem = err instanceof Error ? err.message : String(err);
  }
  void navigator.storage?.persist?.().catch(() => undefined);
  const memory = await openMemory({ name, actor: 'desktop-user', ...(embedder ? { embedder } : {}) });
  return { memory, embedder, embedderProblem };
}
