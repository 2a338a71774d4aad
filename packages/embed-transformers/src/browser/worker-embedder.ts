import type { Embedder, EmbedKind } from '@zeromem/core';
import { ZeromemError } from '@zeromem/core';
import { embedderUnavailable, invalidOption, messageOf } from '../errors.ts';
import { DEFAULT_MODEL, resolveSettings, type ModelSettingsOptions } from '../model-settings.ts';
import type { PageMessage, WasmPaths, WorkerInitOptions, WorkerMessage } from './protocol.ts';

/** Options of {@link createWorkerEmbedder}. */
export interface WorkerEmbedderOptions extends ModelSettingsOptions {
  /** A worker running `@zeromem/embed-transformers/worker` (build it with your bundler). Or give `workerUrl`. */
  worker?: Worker;
  /** URL of a module worker script that runs `@zeromem/embed-transformers/worker`. Or give `worker`. */
  workerUrl?: string | URL;
  /**
   * URL of the folder your app serves model folders from (transformers.js
   * `env.localModelPath`), e.g. `/models/` holding `zeromem-static-en/`. Relative URLs are
   * resolved against the page.
   */
  modelBaseUrl: string;
  /**
   * Where your app serves onnxruntime-web's wasm files (`env.backends.onnx.wasm.wasmPaths`):
   * a folder URL such as `/ort/`, holding the files `ONNX_WASM_FILES` lists (in Node,
   * `onnxWasmDir()` says where they are in node_modules). Never a CDN by default.
   */
  wasmPaths: WasmPaths;
  /** A model name under `modelBaseUrl`, or a hub id with `allowRemoteModels`. Default the bundled `zeromem-static-en`. */
  model?: string;
  /** Let transformers.js download from the Hugging Face hub when the files are not at `modelBaseUrl`. Default false. */
  allowRemoteModels?: boolean;
  /** onnxruntime-web threads. Default 1; more needs a cross-origin isolated page (COOP/COEP headers). */
  numThreads?: number;
  /** Keep model files in the Cache Storage API too. Default false (the HTTP cache already holds self-hosted files). */
  browserCache?: boolean;
  /** How long loading the model may take before EMBEDDER_UNAVAILABLE. Default 60 000 ms. */
  timeoutMs?: number;
}

/** An {@link Embedder} backed by a Web Worker. */
export interface WorkerEmbedder extends Embedder {
  readonly fusionWeight: number;
  /** The model as the worker loaded it. */
  readonly model: string;
  /** Frees the model; also ends the worker when this embedder started it. Later `embed` calls fail. */
  dispose(): Promise<void>;
}

const SETTING_KEYS = ['pooling', 'queryPrefix', 'documentPrefix', 'maxUnknownFraction', 'batchSize', 'batchTokens', 'fusionWeight', 'dtype'] as const satisfies ReadonlyArray<keyof ModelSettingsOptions>;
const OPTION_KEYS: ReadonlySet<string> = new Set(['worker', 'workerUrl', 'modelBaseUrl', 'wasmPaths', 'model', 'allowRemoteModels', 'numThreads', 'browserCache', 'timeoutMs', ...SETTING_KEYS]);

/** A page message before it gets its id. */
type Outgoing = PageMessage extends infer M ? (M extends PageMessage ? Omit<M, 'id'> : never) : never;

type Pending = { resolve: (message: WorkerMessage) => void; reject: (err: ZeromemError) => void };

/** Turns a URL the page knows into an absolute one the worker can use. */
function absolute(url: string, base: string | undefined): string {
  try {
    return new URL(url, base).href;
  } catch {
    throw invalidOption('url', `cannot resolve ${JSON.stringify(url)} to an absolute URL`);
  }
}

function folderUrl(url: string, base: string | undefined): string {
  const href = absolute(url, base);
  return href.endsWith('/') ? href : `${href}/`;
}

/**
 * Creates an {@link Embedder} for the page that runs transformers.js in a Web Worker
 * (ONNX on WASM), off the main thread. Resolves once the model is loaded.
 *
 * @example browser
 * const worker = new Worker(new URL('./embedder-worker.ts', import.meta.url), { type: 'module' });
 * const embedder = await createWorkerEmbedder({ worker, modelBaseUrl: '/models/', wasmPaths: '/ort/' });
 * const memory = await openMemory({ embedder });
 * @throws ZeromemError EMBEDDER_UNAVAILABLE when the worker or the model cannot be loaded; INVALID_INPUT for bad options
 */
export async function createWorkerEmbedder(options: WorkerEmbedderOptions): Promise<WorkerEmbedder> {
  if (typeof options !== 'object' || options === null) throw invalidOption('', 'options must be an object');
  if (!options.worker === !options.workerUrl) throw invalidOption('worker', 'pass exactly one of worker (a Worker) or workerUrl (its script URL)');
  if (typeof options.modelBaseUrl !== 'string' || !options.modelBaseUrl) throw invalidOption('modelBaseUrl', 'must be the URL your app serves model folders from, e.g. "/models/"');
  if (!options.wasmPaths || (typeof options.wasmPaths !== 'string' && typeof options.wasmPaths !== 'object')) {
    throw invalidOption('wasmPaths', 'must be the URL your app serves onnxruntime-web wasm files from, e.g. "/ort/"');
  }
  const numThreads = options.numThreads ?? 1;
  if (!Number.isInteger(numThreads) || numThreads < 1) throw invalidOption('numThreads', 'must be a whole number, 1 or more');
  const timeoutMs = options.timeoutMs ?? 60_000;
  if (!(typeof timeoutMs === 'number' && timeoutMs > 0)) throw invalidOption('timeoutMs', 'must be a positive number of milliseconds');

  const base = globalThis.location?.href;
  const wasmPaths: WasmPaths =
    typeof options.wasmPaths === 'string'
      ? folderUrl(options.wasmPaths, base)
      : {
          ...(options.wasmPaths.wasm ? { wasm: absolute(options.wasmPaths.wasm, base) } : {}),
          ...(options.wasmPaths.mjs ? { mjs: absolute(options.wasmPaths.mjs, base) } : {}),
        };
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) throw invalidOption(key, `unknown option; known ones are ${[...OPTION_KEYS].join(', ')}`);
  }
  const { worker: given, workerUrl, modelBaseUrl, model = DEFAULT_MODEL, allowRemoteModels, browserCache } = options;
  if (typeof model !== 'string' || !model) throw invalidOption('model', 'must be a model name under modelBaseUrl, or a hub id');
  resolveSettings(model, options); // INVALID_INPUT here rather than from the worker
  const settings: ModelSettingsOptions = {};
  for (const key of SETTING_KEYS) if (options[key] !== undefined) (settings as Record<string, unknown>)[key] = options[key];
  const init: WorkerInitOptions = {
    ...settings,
    model,
    modelBaseUrl: folderUrl(modelBaseUrl, base),
    wasmPaths,
    allowRemoteModels: allowRemoteModels ?? false,
    numThreads,
    browserCache: browserCache ?? false,
  };

  let worker: Worker;
  try {
    worker = given ?? new Worker(workerUrl!, { type: 'module' });
  } catch (err) {
    throw embedderUnavailable(`Could not start the embedder worker (${messageOf(err)}). Check workerUrl, or pass a Worker your bundler built.`, err);
  }
  const owned = !given;
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let broken: ZeromemError | undefined;

  const breakAll = (err: ZeromemError) => {
    broken ??= err;
    for (const request of pending.values()) request.reject(err);
    pending.clear();
  };
  const onMessage = (event: MessageEvent<WorkerMessage>) => {
    const message = event.data;
    const request = pending.get(message.id);
    if (!request) return;
    pending.delete(message.id);
    if (message.type === 'error') {
      request.reject(new ZeromemError(message.code === 'INVALID_INPUT' ? 'INVALID_INPUT' : 'EMBEDDER_UNAVAILABLE', message.message));
    } else request.resolve(message);
  };
  const onError = (event: ErrorEvent | MessageEvent) => {
    const detail = 'message' in event && typeof event.message === 'string' && event.message ? event.message : 'the script failed to load or threw';
    breakAll(embedderUnavailable(`The embedder worker failed: ${detail}. Check that the worker script is served and runs @zeromem/embed-transformers/worker.`));
  };
  worker.addEventListener('message', onMessage);
  worker.addEventListener('error', onError);
  worker.addEventListener('messageerror', onError);

  const request = (message: Outgoing): Promise<WorkerMessage> => {
    if (broken) return Promise.reject(broken);
    const id = nextId++;
    return new Promise<WorkerMessage>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      try {
        worker.postMessage({ ...message, id } as PageMessage);
      } catch (err) {
        pending.delete(id);
        reject(embedderUnavailable(`Could not send to the embedder worker: ${messageOf(err)}`, err));
      }
    });
  };
  const detach = () => {
    worker.removeEventListener('message', onMessage);
    worker.removeEventListener('error', onError);
    worker.removeEventListener('messageerror', onError);
    if (owned) worker.terminate();
  };

  let ready: Extract<WorkerMessage, { type: 'ready' }>;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(embedderUnavailable(`The embedder worker did not load "${init.model}" within ${timeoutMs} ms. Check that ${init.modelBaseUrl} and the wasm files are served, or raise timeoutMs.`)),
        timeoutMs,
      );
    });
    ready = (await Promise.race([request({ type: 'init', options: init }), timeout])) as typeof ready;
  } catch (err) {
    detach();
    throw err instanceof ZeromemError ? err : embedderUnavailable(messageOf(err), err);
  } finally {
    clearTimeout(timer);
  }

  const { dimension } = ready;
  return {
    modelId: ready.modelId,
    model: ready.model,
    dimension,
    fusionWeight: ready.fusionWeight,
    async embed(texts: readonly string[], kind: EmbedKind): Promise<Array<Float32Array | null>> {
      if (texts.length === 0) return [];
      const answer = (await request({ type: 'embed', texts: [...texts], kind })) as Extract<WorkerMessage, { type: 'vectors' }>;
      const out: Array<Float32Array | null> = new Array(texts.length);
      for (let i = 0; i < texts.length; i++) {
        // slice, not subarray: each vector gets its own small buffer (a view would keep, and store, the whole block).
        out[i] = answer.present[i] ? answer.data.slice(i * dimension, (i + 1) * dimension) : null;
      }
      return out;
    },
    async dispose() {
      if (broken) return detach();
      try {
        await request({ type: 'dispose' });
      } finally {
        breakAll(embedderUnavailable('This embedder was disposed; create a new one.'));
        detach();
      }
    },
  };
}
