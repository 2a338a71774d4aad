import type { FeatureExtractor } from './pipeline-embedder.ts';
import { embedderUnavailable, messageOf } from './errors.ts';

type Transformers = typeof import('@huggingface/transformers');
/** transformers.js's global settings object. */
export type TransformersEnv = Transformers['env'];

/** What to load and from where. */
export interface LoadRequest {
  /** What transformers.js gets: a name under `localModelPath`, a hub id, or an absolute folder path. */
  model: string;
  /** Folder (Node) or URL (browser) that holds model folders. */
  localModelPath: string;
  /** Let transformers.js download from the Hugging Face hub when the files are not local. */
  allowRemoteModels: boolean;
  dtype?: string | undefined;
  /** transformers.js cache folder for downloads (Node). Default: transformers.js's own. */
  cacheDir?: string | undefined;
  /** onnxruntime session options (transformers.js `session_options`), e.g. Node's thread settings. */
  sessionOptions?: Record<string, unknown> | undefined;
  /** Extra environment settings (the browser sets its wasm paths here). */
  configure?: (env: TransformersEnv) => void;
  /** Says what to do when the model is not found, for the error message. */
  notFoundHint: string;
}

/** A loaded pipeline and how to free it. */
export interface LoadedExtractor {
  extractor: FeatureExtractor;
  dispose(): Promise<void>;
}

// transformers.js keeps its settings in one global `env`, read while a model loads:
// loads take turns so that two embedders with different folders cannot mix them up.
let turn: Promise<unknown> = Promise.resolve();

/**
 * Loads a feature-extraction pipeline with transformers.js: local files only unless
 * `allowRemoteModels`. Every failure is EMBEDDER_UNAVAILABLE with a message saying what to do.
 */
export function loadExtractor(request: LoadRequest): Promise<LoadedExtractor> {
  const result = turn.then(() => load(request));
  turn = result.catch(() => undefined);
  return result;
}

async function load(request: LoadRequest): Promise<LoadedExtractor> {
  let transformers: Transformers;
  try {
    transformers = await import('@huggingface/transformers');
  } catch (err) {
    throw embedderUnavailable(`Could not load @huggingface/transformers (${messageOf(err)}). Install the package's dependencies (pnpm install).`, err);
  }
  const { env, pipeline } = transformers;
  env.allowLocalModels = true;
  env.allowRemoteModels = request.allowRemoteModels;
  env.localModelPath = request.localModelPath;
  if (request.cacheDir !== undefined) env.cacheDir = request.cacheDir;
  request.configure?.(env);
  try {
    const extractor = await pipeline('feature-extraction', request.model, {
      local_files_only: !request.allowRemoteModels,
      ...(request.dtype ? { dtype: request.dtype as 'fp32' } : {}),
      ...(request.sessionOptions ? { session_options: request.sessionOptions } : {}),
    });
    return {
      extractor: extractor as unknown as FeatureExtractor,
      dispose: () => extractor.dispose(),
    };
  } catch (err) {
    const message = messageOf(err);
    const missing = /not found locally|Could not locate file|no such file|ENOENT|status: 404|404/i.test(message);
    if (missing && !request.allowRemoteModels) {
      throw embedderUnavailable(`Model "${request.model}" was not found in ${request.localModelPath} and remote loading is off. ${request.notFoundHint}`, err);
    }
    throw embedderUnavailable(`Could not load model "${request.model}": ${message}. ${request.notFoundHint}`, err);
  }
}
