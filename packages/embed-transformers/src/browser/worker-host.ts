import type { EmbedKind } from '@zeromem/core';
import { embedderUnavailable, messageOf } from '../errors.ts';
import { loadExtractor } from '../load-extractor.ts';
import { modelIdFor, resolveSettings } from '../model-settings.ts';
import { pipelineEmbedder, type TransformersEmbedder } from '../pipeline-embedder.ts';
import type { PageMessage, WorkerInitOptions, WorkerMessage } from './protocol.ts';

/** The part of a dedicated worker's global scope the host uses. */
export interface WorkerScope {
  postMessage(message: WorkerMessage, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<PageMessage>) => void): void;
}

/**
 * Runs in a Web Worker: answers the page's {@link PageMessage}s with one transformers.js
 * model on onnxruntime-web (WASM), from self-hosted files only (`env.allowRemoteModels`
 * false unless asked, `env.localModelPath` = the page's `modelBaseUrl`, the wasm files from
 * `wasmPaths`, never a CDN). Requests are answered in order.
 */
export function serveEmbedder(scope: WorkerScope): void {
  let embedder: Promise<TransformersEmbedder> | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const fail = (id: number, err: unknown) => {
    const code = typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : 'EMBEDDER_UNAVAILABLE';
    scope.postMessage({ type: 'error', id, code, message: messageOf(err) });
  };

  const handle = async (message: PageMessage): Promise<void> => {
    switch (message.type) {
      case 'init': {
        if (embedder) throw embedderUnavailable('This worker already serves a model; start another worker for another model.');
        const starting = start(message.options);
        embedder = starting;
        let ready: TransformersEmbedder;
        try {
          ready = await starting;
        } catch (err) {
          if (embedder === starting) embedder = undefined; // a later "init" may try again
          throw err;
        }
        scope.postMessage({ type: 'ready', id: message.id, modelId: ready.modelId, model: ready.model, dimension: ready.dimension, fusionWeight: ready.fusionWeight });
        return;
      }
      case 'embed': {
        if (!embedder) throw embedderUnavailable('The worker got texts before its model: send "init" first.');
        const ready = await embedder;
        scope.postMessage(...pack(message.id, await ready.embed(message.texts, message.kind as EmbedKind), ready.dimension));
        return;
      }
      case 'dispose': {
        const current = embedder;
        embedder = undefined;
        if (current) await (await current.catch(() => undefined))?.dispose();
        scope.postMessage({ type: 'disposed', id: message.id });
        return;
      }
    }
  };

  scope.addEventListener('message', (event) => {
    const message = event.data;
    queue = queue.then(() => handle(message)).catch((err) => fail(message.id, err));
  });
}

async function start(options: WorkerInitOptions): Promise<TransformersEmbedder> {
  const settings = resolveSettings(options.model, options);
  const loaded = await loadExtractor({
    model: options.model,
    localModelPath: options.modelBaseUrl,
    allowRemoteModels: options.allowRemoteModels,
    dtype: settings.dtype,
    configure(env) {
      env.useBrowserCache = options.browserCache;
      const wasm = env.backends.onnx.wasm;
      if (!wasm) throw embedderUnavailable('onnxruntime-web has no WASM backend here.');
      // transformers.js points wasmPaths at a CDN when it loads; replace that before the first session.
      wasm.wasmPaths = options.wasmPaths;
      wasm.numThreads = options.numThreads;
      wasm.proxy = false; // already off the main thread
    },
    notFoundHint: `Serve the model folder at ${options.modelBaseUrl}${options.model}/ (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx), or pass allowRemoteModels: true.`,
  });
  const label = options.model;
  return pipelineEmbedder(loaded.extractor, settings, { modelId: modelIdFor(label, settings), model: label }, loaded.dispose);
}

/** One transferable block for all the vectors of a request. */
function pack(id: number, vectors: Array<Float32Array | null>, dimension: number): [WorkerMessage, Transferable[]] {
  const data = new Float32Array(vectors.length * dimension);
  const present = new Uint8Array(vectors.length);
  vectors.forEach((vector, i) => {
    if (!vector) return;
    data.set(vector, i * dimension);
    present[i] = 1;
  });
  return [{ type: 'vectors', id, dimension, data, present }, [data.buffer, present.buffer]];
}
