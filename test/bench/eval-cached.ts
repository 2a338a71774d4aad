/**
 * `zeromem eval` with the embedder's vectors kept in a cache file, so a ranking change can
 * be measured on LongMemEval again without embedding its 58k memories again (the store
 * and the ranking run as in the real command; only `embed` answers from the cache).
 *
 *   npx tsx --conditions=development test/bench/eval-cached.ts --memories ... --queries ... --out ... [eval options]
 *
 * Same arguments as `pnpm run eval`. The cache is `$EVAL_VECTOR_CACHE` (default
 * /tmp/zeromem-eval-vectors), one file per embedder model id; a text missing from it is
 * embedded by the real embedder and added when the run ends.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Embedder } from '../../packages/core/src/index.ts';
import { parseEvalArgs } from '../../packages/cli/src/main.ts';
import { runEval } from '../../packages/cli/src/eval/run-eval.ts';

const dir = process.env['EVAL_VECTOR_CACHE'] ?? '/tmp/zeromem-eval-vectors';

function cached(real: Embedder): Embedder & { save(): void } {
  mkdirSync(dir, { recursive: true });
  const base = join(dir, real.modelId.replace(/[^\w.-]/g, '_'));
  // Keys in a JSON list (null vector: key prefixed with "-"), vectors packed in the same order.
  const table = new Map<string, Float32Array | null>();
  if (existsSync(`${base}.keys.json`)) {
    const keys = JSON.parse(readFileSync(`${base}.keys.json`, 'utf8')) as string[];
    const raw = readFileSync(`${base}.f32`);
    const floats = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
    let at = 0;
    for (const k of keys) {
      if (k.startsWith('-')) table.set(k.slice(1), null);
      else (table.set(k, floats.slice(at, at + real.dimension)), (at += real.dimension));
    }
  }
  let added = 0;
  const key = (text: string, kind: string) => createHash('sha1').update(kind).update('\0').update(text).digest('base64');
  return {
    modelId: real.modelId,
    dimension: real.dimension,
    ...(real.fusionWeight !== undefined ? { fusionWeight: real.fusionWeight } : {}),
    async embed(texts, kind) {
      const keys = texts.map((text) => key(text, kind));
      const missing = texts.filter((_, i) => !table.has(keys[i]!));
      if (missing.length) {
        const vectors = await real.embed(missing, kind);
        let j = 0;
        texts.forEach((_, i) => {
          if (table.has(keys[i]!)) return;
          const v = vectors[j++];
          table.set(keys[i]!, v ? Float32Array.from(v) : null);
          added++;
        });
      }
      return keys.map((k) => {
        const v = table.get(k);
        return v ? v.slice() : null;
      });
    },
    save() {
      if (!added) return;
      const keys: string[] = [];
      const out = new Float32Array([...table.values()].filter(Boolean).length * real.dimension);
      let at = 0;
      for (const [k, v] of table) {
        keys.push(v ? k : `-${k}`);
        if (v) (out.set(v, at), (at += real.dimension));
      }
      writeFileSync(`${base}.keys.json`, JSON.stringify(keys));
      writeFileSync(`${base}.f32`, out);
    },
  };
}

const options = parseEvalArgs(process.argv.slice(2));
if (options === 'help') throw new Error('see `pnpm run eval --help`');
let wrapper: ReturnType<typeof cached> | undefined;
const code = await runEval({
  ...options,
  loadEmbedderModule: async () => {
    const real = (await import('@zeromem/embed-transformers')) as { createTransformersEmbedder(o?: object): Promise<Embedder> };
    return { createTransformersEmbedder: async (o?: object) => (wrapper = cached(await real.createTransformersEmbedder(o))) };
  },
});
wrapper?.save();
process.exitCode = code;
