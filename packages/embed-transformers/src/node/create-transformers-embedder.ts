import { resolve } from 'node:path';
import { invalidOption } from '../errors.ts';
import { loadExtractor } from '../load-extractor.ts';
import { modelIdFor, resolveSettings, type ModelSettingsOptions } from '../model-settings.ts';
import { pipelineEmbedder, type TransformersEmbedder } from '../pipeline-embedder.ts';
import { locateModel } from './model-location.ts';
import { loadStaticModel } from './static-model.ts';

/** Options of {@link createTransformersEmbedder}. Everything is optional. */
export interface TransformersEmbedderOptions extends ModelSettingsOptions {
  /**
   * A model id (`Xenova/all-MiniLM-L6-v2`) or a name under `localModelPath`. A path
   * (absolute, or starting with `./`) is taken as `modelPath`. Default: the bundled
   * `zeromem-static-en`.
   */
  model?: string;
  /** A folder that holds one model (config.json, tokenizer.json, onnx/model.onnx). Overrides `model`. */
  modelPath?: string;
  /** A folder that holds model folders, looked up by `model`. Default: this package's `models/`. */
  localModelPath?: string;
  /**
   * Let transformers.js download the model from the Hugging Face hub when it is not
   * local. Default false: no network is ever touched.
   */
  allowRemoteModels?: boolean;
  /** Where transformers.js caches downloads (with `allowRemoteModels`). Default: its own cache folder. */
  cacheDir?: string;
}

/**
 * onnxruntime-node's threads (one per core, its default) wait for work by sleeping, not by
 * spinning: a spinning thread keeps a core busy between calls, which on a machine shared with
 * other work (an agent, its tools, other processes) slowed a short MiniLM query 2-5x (8-20 ms
 * sleeping against 34-50 ms, 2 cores at load 20-26, test/bench/onnx-spin.ts) and burned ~40%
 * more CPU.
 */
const SESSION_OPTIONS = { extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } } };

const OPTION_KEYS: ReadonlySet<string> = new Set([
  'model',
  'modelPath',
  'localModelPath',
  'allowRemoteModels',
  'cacheDir',
  'pooling',
  'queryPrefix',
  'documentPrefix',
  'maxUnknownFraction',
  'batchSize',
  'batchTokens',
  'fusionWeight',
  'dtype',
  'queryTail',
]);

/**
 * Creates an {@link Embedder} that runs a transformers.js feature-extraction model in
 * Node (onnxruntime-node), from local files only unless `allowRemoteModels`. A static
 * embedding model (the bundled `zeromem-static-en`) is a table lookup and runs in plain
 * JavaScript instead, with the same vectors: transformers.js and the ONNX runtime are
 * loaded only for a transformer model.
 *
 * Texts the model cannot read (all or mostly unknown tokens: Chinese or emoji for the
 * English bundled model) get `null`: such memories are found lexically.
 *
 * @example
 * import { openMemory } from '@zeromem/core';
 * import { createTransformersEmbedder } from '@zeromem/embed-transformers';
 *
 * const embedder = await createTransformersEmbedder(); // the bundled 128-d model, offline
 * const memory = await openMemory({ name: 'semantic', embedder });
 * console.log(embedder.modelId, embedder.dimension); // … 128
 * await memory.close();
 * await embedder.dispose();
 * @example your-model
 * await createTransformersEmbedder({ modelPath: '/models/all-MiniLM-L6-v2' }); // your files
 * await createTransformersEmbedder({ model: 'Xenova/bge-small-zh-v1.5', allowRemoteModels: true }); // cls pooling by default
 * @throws ZeromemError EMBEDDER_UNAVAILABLE when the model cannot be found or loaded (the
 *   message says what to pass); INVALID_INPUT for a bad option
 */
export async function createTransformersEmbedder(options: TransformersEmbedderOptions = {}): Promise<TransformersEmbedder> {
  if (typeof options !== 'object' || options === null) throw invalidOption('', 'options must be an object');
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) throw invalidOption(key, `unknown option; known ones are ${[...OPTION_KEYS].join(', ')}`);
  }
  for (const key of ['model', 'modelPath', 'localModelPath', 'cacheDir'] as const) {
    const value = options[key];
    if (value !== undefined && (typeof value !== 'string' || !value.trim())) throw invalidOption(key, 'must be a non-empty string');
  }
  if (options.allowRemoteModels !== undefined && typeof options.allowRemoteModels !== 'boolean') throw invalidOption('allowRemoteModels', 'must be a boolean');
  const allowRemoteModels = options.allowRemoteModels ?? false;

  const location = locateModel(options);
  const settings = resolveSettings(location.label, options);
  const notFoundHint = location.isFolder
    ? 'Check that the folder holds the ONNX file for the dtype asked for (onnx/model.onnx for fp32, onnx/model_quantized.onnx for q8).'
    : `Pass modelPath: a folder that holds config.json, tokenizer.json and onnx/model.onnx; or localModelPath: the folder that holds "${location.model}/"; or allowRemoteModels: true to download "${location.model}" from the Hugging Face hub.`;
  const identity = { modelId: modelIdFor(location.label, settings), model: location.label };
  // A static model (a table lookup) runs in plain JavaScript: no ONNX runtime is loaded for it.
  const lookup = settings.dtype === undefined || settings.dtype === 'fp32' ? loadStaticModel(resolve(location.localModelPath, location.model)) : undefined;
  if (lookup) return pipelineEmbedder(lookup, settings, identity, async () => undefined);
  const loaded = await loadExtractor({
    model: location.model,
    localModelPath: location.localModelPath,
    allowRemoteModels,
    dtype: settings.dtype,
    cacheDir: options.cacheDir,
    sessionOptions: SESSION_OPTIONS,
    notFoundHint,
  });
  try {
    return await pipelineEmbedder(loaded.extractor, settings, identity, loaded.dispose);
  } catch (err) {
    await loaded.dispose().catch(() => undefined);
    throw err;
  }
}
