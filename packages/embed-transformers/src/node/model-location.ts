import { existsSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { embedderUnavailable } from '../errors.ts';
import { DEFAULT_MODEL } from '../model-settings.ts';
import { bundledModelsDir } from './assets.ts';

/** Where transformers.js finds a model, and the name it goes by. */
export interface ModelLocation {
  /** What transformers.js gets as the model. */
  model: string;
  /** What transformers.js gets as `env.localModelPath`. */
  localModelPath: string;
  /** The model's name in ids and messages: the id, or the folder's name. */
  label: string;
  /** True when the caller named a folder. */
  isFolder: boolean;
}

/** A name transformers.js accepts as a (local or hub) model id; others it reads as paths. */
const MODEL_ID = /^(?:[\w.-]+\/)?[\w.-]{1,96}$/;

function isModelId(value: string): boolean {
  return MODEL_ID.test(value) && !value.includes('..') && !value.includes('--') && !value.endsWith('.git');
}

/** A string that names a folder rather than a model id. */
function looksLikePath(value: string): boolean {
  return isAbsolute(value) || value.startsWith('./') || value.startsWith('../') || value.startsWith('~') || value.includes('\\');
}

/**
 * Resolves `model` / `modelPath` / `localModelPath` to what transformers.js needs. A folder
 * holding one model is split into its parent (`localModelPath`) and its name, so that
 * transformers.js looks for exactly that folder.
 * @throws ZeromemError EMBEDDER_UNAVAILABLE when a folder is named that holds no model
 */
export function locateModel(options: { model?: string | undefined; modelPath?: string | undefined; localModelPath?: string | undefined }): ModelLocation {
  const folder = options.modelPath ?? (options.model !== undefined && looksLikePath(options.model) ? options.model : undefined);
  if (folder === undefined) {
    const model = options.model ?? DEFAULT_MODEL;
    return { model, localModelPath: resolve(options.localModelPath ?? bundledModelsDir()), label: model, isFolder: false };
  }
  const path = resolve(folder);
  if (!existsSync(path) || !statSync(path).isDirectory()) {
    throw embedderUnavailable(`The model folder ${path} does not exist. Pass modelPath: a folder that holds config.json, tokenizer.json and onnx/model.onnx (a transformers.js model, e.g. a copy of Xenova/all-MiniLM-L6-v2).`);
  }
  if (!existsSync(join(path, 'config.json'))) {
    throw embedderUnavailable(`The folder ${path} holds no config.json, so it is not a transformers.js model folder. A model folder holds config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx (as on the Hugging Face hub).`);
  }
  const name = basename(path);
  // A name transformers.js would not take as an id (e.g. with "+" or "--") is passed as the path itself.
  return isModelId(name)
    ? { model: name, localModelPath: dirname(path), label: name, isFolder: true }
    : { model: path, localModelPath: dirname(path), label: name, isFolder: true };
}
