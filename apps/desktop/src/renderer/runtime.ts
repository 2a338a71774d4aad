/**
 * Opens the app's memory. In the web twin (and in Electron when the device store cannot be
 * opened) it lives in this renderer: IndexedDB through @zeromem/core, embeddings in a Web
 * Worker (onnxruntime-web) on the bundled model, both served by the app itself from
 * `zeromem-assets/` next to the page; if the embedder cannot start, the memory still opens
 * and recall is lexical (BM25) only; the header says so. In Electron it is the device store
 * the main process opened (shared with zeromem-mcp and the CLI), through the preload.
 */
import { openMemory, type Memory } from '@zeromem/core';
import { createWorkerEmbedder, type WorkerEmbedder } from '@zeromem/embed-transformers/browser';
import type { DeviceStoreInfo } from '../shared/ipc-contract.ts';
import { deviceMemory, type AppMemory } from './app-memory.ts';

export interface Runtime {
  memory: AppMemory;
  /** The page's own memory (web twin), which sync binds; null when `memory` is the device store. */
  local: Memory | null;
  embedder: WorkerEmbedder | null;
  /** Why there is no embedder, if there is none. */
  embedderProblem: string | null;
  /** Where the memories are, for the header. */
  where: string;
}

/** The asset folder URLs, relative to the page (http://127.0.0.1:5173/ or app://zeromem/). */
export function assetUrls(base = document.baseURI): { models: string; wasm: string } {
  return { models: new URL('zeromem-assets/models/', base).href, wasm: new URL('zeromem-assets/ort/', base).href };
}

export async function openRuntime(name = 'zeromem-desktop'): Promise<Runtime> {
  let deviceProblem = '';
  const verbs = window.zeromemDesktop?.memory;
  if (verbs) {
    try {
      const info = (await verbs.info()) as DeviceStoreInfo;
      return {
        memory: deviceMemory(verbs),
        local: null,
        embedder: null,
        embedderProblem: 'The device store is searched by its words here: the desktop app’s main process runs no embedder.',
        where: info.file,
      };
    } catch (err) {
      deviceProblem = ` (the device store could not be opened: ${err instanceof Error ? err.message : String(err)})`;
    }
  }
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
  return { memory, local: memory, embedder, embedderProblem, where: `this browser’s storage (IndexedDB “${name}”)${deviceProblem}` };
}
