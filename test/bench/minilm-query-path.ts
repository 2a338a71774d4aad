/**
 * Where a MiniLM query's time goes (tokenizer, session.run, pooling), and what onnxruntime's
 * session options (intra-op threads, graph optimization, memory arena) change, in one
 * process taking turns; then what a query costs by its length in word pieces (the model
 * reads at most 256):
 *
 *   npx tsx --conditions=development test/bench/minilm-query-path.ts [queries=200] [rounds=3]
 */
import { loadavg } from 'node:os';
import { loadExtractor } from '../../packages/embed-transformers/src/load-extractor.ts';
import { bundledModelsDir } from '../../packages/embed-transformers/src/node/assets.ts';
import type { FeatureExtractor } from '../../packages/embed-transformers/src/pipeline-embedder.ts';
import { mulberry32 as prng } from '../kit/mulberry32.ts';
import { summarize } from './stats.ts';

const WORDS = 'user prefers phone calls email morning evening weekend coffee tea doctor appointment dentist flight hotel trip paris lyon berlin sister brother mother daughter son wife husband dog cat birthday gift concert guitar cello piano marathon'.split(' ');
const n = Number(process.argv[2] ?? 200);
const rounds = Number(process.argv[3] ?? 3);
const random = prng(5);
const queries = Array.from({ length: n }, () => Array.from({ length: 6 + Math.floor(random() * 5) }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' '));

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

const spin = { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } };
const variants: Record<string, Record<string, unknown>> = Object.fromEntries(
  Object.entries({
    default: {},
    'opt-basic': { graphOptimizationLevel: 'basic' },
    'opt-disabled': { graphOptimizationLevel: 'disabled' },
    'intra-1': { intraOpNumThreads: 1 },
    'no-mem-pattern': { enableMemPattern: false, enableCpuMemArena: false },
  }).map(([name, options]) => [name, { ...options, extra: { session: spin } }]),
);
const loaded: Record<string, FeatureExtractor> = {};
for (const [name, sessionOptions] of Object.entries(variants)) {
  loaded[name] = (await loadExtractor({ model: 'all-MiniLM-L6-v2', localModelPath: bundledModelsDir(), allowRemoteModels: false, dtype: 'q8', sessionOptions, notFoundHint: '' })).extractor;
}
const load = [loadavg()[0]];
const results: Record<string, Record<string, number[]>> = {};
for (let round = 0; round < rounds; round++) {
  const names = Object.keys(variants);
  for (const name of names.map((_, i) => names[(i + round) % names.length]!)) {
    const extractor = loaded[name]!;
    const tok: number[] = [], run: number[] = [], total: number[] = [], cpu: number[] = [];
    for (let i = 0; i < n; i++) {
      const c0 = cpuMs();
      const t0 = performance.now();
      const inputs = extractor.tokenizer([queries[i]!], { padding: true, truncation: true });
      const t1 = performance.now();
      const out = await extractor.model(inputs as never);
      const t2 = performance.now();
      const hidden = out.last_hidden_state!;
      const data = hidden.data as Float32Array;
      const sum = new Float32Array(384);
      for (let k = 0; k < data.length; k++) sum[k % 384]! += data[k]!;
      const t3 = performance.now();
      if (i < 5) continue;
      tok.push(t1 - t0); run.push(t2 - t1); total.push(t3 - t0); cpu.push(cpuMs() - c0);
    }
    const r = (results[name] ??= { tokenizer: [], run: [], total: [], cpu: [] });
    r.tokenizer!.push(summarize(tok).p50); r.run!.push(summarize(run).p50); r.total!.push(summarize(total).p50); r.cpu!.push(summarize(cpu).p50);
  }
}
// By length: queries of about 10, 64, 128 and 256+ word pieces (the default session).
const byLength: Record<string, number[]> = {};
const extractor = loaded.default!;
for (let round = 0; round < rounds; round++) {
  for (const words of [8, 60, 120, 400]) {
    const texts = Array.from({ length: 40 }, () => Array.from({ length: words }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' '));
    const cpu: number[] = [];
    let pieces = 0;
    for (const text of texts) {
      const c0 = cpuMs();
      const inputs = extractor.tokenizer([text], { padding: true, truncation: true });
      await extractor.model(inputs as never);
      cpu.push(cpuMs() - c0);
      pieces = inputs.input_ids.dims[1]!;
    }
    (byLength[`${pieces} pieces`] ??= []).push(summarize(cpu.slice(3)).p50);
  }
}
load.push(loadavg()[0]);
console.log(JSON.stringify({ queries: n, rounds, load, p50PerRound: results, cpuP50ByLength: byLength }, null, 1));
