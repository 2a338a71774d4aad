/**
 * Opens the app's memory. In the web twin (and in Electron when the device store cannot be
 * opened) it lives in this renderer: IndexedDB through @zeromem/core, embeddings in a Web
 * Worker (onnxruntime-web) on the bundled model, both served by the app itself from
 * `zeromem-assets/` next to the page. The memory opens without waiting for the model, which
 * loads in the background ({@link backgroundEmbedder}) and is kept in Cache Storage for the
 * next visit; until it is ready, or if it cannot start, recall is lexical (BM25) and the
 * header says so. In Electron it is the device store
 * the main process opened (shared with zeromem-mcp and the CLI), through the preload.
 */
import { openMemory, type Memory } from '@zeromem/core';
import { createWorkerEmbedder, DEFAULT_MODEL, DEFAULT_MODEL_DIMENSION, defaultSettings, modelIdFor } from '@zeromem/embed-transformers/browser';
import type { DeviceStoreInfo } from '../shared/ipc-contract.ts';
import { deviceMemory, type AppMemory } from './app-memory.ts';
import { backgroundEmbedder, type BackgroundEmbedder } from './background-embedder.ts';

export interface Runtime {
  memory: AppMemory;
  /** The page's own memory (web twin), which sync binds; null when `memory` is the device store. */
  local: Memory | null;
  /** The on-device model (web twin), loading in the background; null with the device store. */
  embedder: BackgroundEmbedder | null;
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
  const settings = defaultSettings(DEFAULT_MODEL);
  const identity = { modelId: modelIdFor(DEFAULT_MODEL, settings), dimension: DEFAULT_MODEL_DIMENSION, fusionWeight: settings.fusionWeight };
  const embedder = backgroundEmbedder(identity, () => {
    const urls = assetUrls();
    const worker = new Worker(new URL('./embedder-worker.ts', import.meta.url), { type: 'module', name: 'zeromem-embedder' });
    // browserCache: the model goes to Cache Storage, so the next visit does not fetch it again.
    return createWorkerEmbedder({ worker, modelBaseUrl: urls.models, wasmPaths: urls.wasm, browserCache: true, timeoutMs: 60_000 });
  });
  void navigator.storage?.persist?.().catch(() => undefined);
  const memory = await openMemory({ name, actor: 'desktop-user', embedder });
  return { memory, local: memory, embedder, embedderProblem: null, where: `this browser’s storage (IndexedDB “${name}”)${deviceProblem}` };
}
