/**
 * onnxruntime-node's intra-op threads: spinning between calls (onnxruntime's default) or
 * sleeping (`allow_spinning: '0'`, what @zeromem/embed-transformers sets in Node), and one
 * thread against two, with MiniLM's 8-bit graph through transformers.js's pipeline. One
 * process per setting, taking turns:
 *
 *   npx tsx --conditions=development test/bench/onnx-spin.ts [rounds=2]
 *
 * Per process (`... onnx-spin.ts --threads 0|1|2 --spin spin|nospin`; 0 = onnxruntime's
 * default, one per core): 256 short English texts (8-23 words) in batches of 32 (texts a
 * second), then 40 one-text calls (p50 ms), and the process's CPU seconds. Prints one JSON
 * line per process with the load average.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundledModelsDir } from '../../packages/embed-transformers/src/index.ts';
import { mulberry32 as prng } from '../kit/mulberry32.ts';

const WORDS = 'user prefers phone calls email morning evening weekend coffee tea doctor appointment dentist flight hotel trip paris lyon berlin sister brother mother'.split(' ');

/** transformers.js as @zeromem/embed-transformers resolves it (the workspace root does not depend on it). */
type Extract = (texts: string[], options: { pooling: 'mean'; normalize: true }) => Promise<unknown>;
interface Transformers {
  env: { allowRemoteModels: boolean; localModelPath: string };
  pipeline(task: string, model: string, options: unknown): Promise<Extract>;
}
const transformersPath = createRequire(fileURLToPath(new URL('../../packages/embed-transformers/package.json', import.meta.url))).resolve('@huggingface/transformers');

async function measure(threads: number, spin: string): Promise<Record<string, unknown>> {
  const load = [loadavg()[0]];
  const { env, pipeline } = (await import(pathToFileURL(transformersPath).href)) as Transformers;
  env.allowRemoteModels = false;
  env.localModelPath = bundledModelsDir();
  const sessionOptions: Record<string, unknown> = {};
  if (threads) sessionOptions.intraOpNumThreads = threads;
  if (spin === 'nospin') sessionOptions.extra = { session: { intra_op: { allow_spinning: '0' } } };
  const fe = await pipeline('feature-extraction', 'all-MiniLM-L6-v2', { local_files_only: true, dtype: 'q8', session_options: sessionOptions });
  const random = prng(1);
  const texts = Array.from({ length: 256 }, () => Array.from({ length: 8 + Math.floor(random() * 16) }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' '));
  await fe(texts.slice(0, 32), { pooling: 'mean', normalize: true });
  let started = performance.now();
  for (let i = 0; i < texts.length; i += 32) await fe(texts.slice(i, i + 32), { pooling: 'mean', normalize: true });
  const textsPerSecond = Math.round(texts.length / ((performance.now() - started) / 1000));
  const times: number[] = [];
  for (let i = 0; i < 40; i++) {
    started = performance.now();
    await fe([texts[i]!], { pooling: 'mean', normalize: true });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const cpu = process.cpuUsage();
  load.push(loadavg()[0]);
  return { threads, spin, textsPerSecond, oneTextP50Ms: +times[20]!.toFixed(2), cpuSeconds: +((cpu.user + cpu.system) / 1e6).toFixed(1), load };
}

const at = process.argv.indexOf('--threads');
if (at >= 0) {
  console.log(JSON.stringify(await measure(Number(process.argv[at + 1]), process.argv[process.argv.indexOf('--spin') + 1]!)));
} else {
  const rounds = Number(process.argv[2] ?? 2);
  for (let round = 0; round < rounds; round++) {
    for (const [threads, spin] of [['1', 'spin'], ['2', 'spin'], ['2', 'nospin'], ['0', 'spin']]) {
      const out = execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--threads', threads!, '--spin', spin!], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      console.log(out.trim().split('\n').pop());
    }
  }
}
