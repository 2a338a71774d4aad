/**
 * The first recall after many writes (issue 32): a memory on disk (SQLite engine, no
 * embedder) whose namespace index is loaded by a first recall, then 10,000 memories written
 * one by one (`remember`, each awaited), then recalls: the first one right after the last
 * write, then 200 more; p50, p99 and max over all 201, the first alone, and the writes'
 * rate. Just before the first recall the index's catch-up is timed on its own
 * (`IndexManager.ready`: it used to apply the whole audit log since the index loaded). A base checkout's core
 * and this one's take turns, each run in a fresh process on a fresh directory.
 *
 *   BENCH_BASE=/tmp/base npx tsx test/bench/recall-after-writes.ts     # BENCH_ROUNDS (3), BENCH_WRITES (10000)
 *
 * Writes test/bench/results/recall-after-writes.json.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './stats.ts';

interface Run {
  writesPerS: number;
  /** What the first recall waited for the index to catch up (`IndexManager.ready`, timed on its own just before it). */
  catchUpMs: number;
  firstMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const WORKER = process.argv[2] === '--worker';
const WRITES = Number(process.env.BENCH_WRITES ?? 10_000);
const RECALLS = 200;
const WORDS = 'garden tomato pepper flight hotel doctor refund battery screen order budget meeting school jazz nurse apartment insurance tires'.split(' ');

async function worker(coreEntry: string, dir: string): Promise<Run> {
  const { openMemory } = (await import(coreEntry)) as typeof import('../../packages/core/src/index.node.ts');
  const { memoryInternals } = (await import(coreEntry.replace(/index\.node\.ts$/, 'test-hooks.ts'))) as typeof import('../../packages/core/src/test-hooks.ts');
  const memory = await openMemory({ name: 'bench', directory: dir, actor: 'bench' });
  const ns = { userId: 'bench' };
  await memory.remember({ namespace: ns, content: 'the first memory' });
  await memory.recall(ns, 'garden doctor', { trackAccess: false }); // the index is loaded (and recall's lazily loaded parts)
  const started = performance.now();
  for (let i = 0; i < WRITES; i++) {
    await memory.remember({ namespace: ns, content: `note ${i}: ${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} ${WORDS[(i * 13) % WORDS.length]}` });
  }
  const writesPerS = Math.round((WRITES / (performance.now() - started)) * 1000);
  const caughtUp = performance.now();
  await memoryInternals.get(memory)!.indexes.ready('u=bench');
  const catchUpMs = Math.round((performance.now() - caughtUp) * 10) / 10;
  const samples: number[] = [];
  for (let i = 0; i <= RECALLS; i++) {
    const t = performance.now();
    await memory.recall(ns, `${WORDS[i % WORDS.length]} ${WORDS[(i * 5) % WORDS.length]}`, { trackAccess: false });
    samples.push(performance.now() - t);
  }
  await memory.close();
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => Math.round(sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]! * 10) / 10;
  return { writesPerS, catchUpMs, firstMs: Math.round(samples[0]! * 10) / 10, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) };
}

if (WORKER) {
  console.log(JSON.stringify(await worker(process.argv[3]!, process.argv[4]!)));
} else {
  const entries: Record<string, string> = { branch: fileURLToPath(new URL('../../packages/core/src/index.node.ts', import.meta.url)) };
  if (process.env.BENCH_BASE) entries.base = join(process.env.BENCH_BASE, 'packages/core/src/index.node.ts');
  const names = Object.keys(entries);
  const runs: Record<string, Run[]> = Object.fromEntries(names.map((n) => [n, []]));
  const loads: number[] = [];
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 ? [...names].reverse() : names) {
      loads.push(loadavg()[0]!);
      const dir = mkdtempSync(join(tmpdir(), 'zeromem-raw-'));
      try {
        const out = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--worker', entries[name]!, dir], { encoding: 'utf8', env: process.env });
        runs[name]!.push(JSON.parse(out.trim().split('\n').at(-1)!));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      console.error(`round ${round + 1}/${rounds} ${name}: ${JSON.stringify(runs[name]!.at(-1))}`);
    }
  }
  const keys = ['writesPerS', 'catchUpMs', 'firstMs', 'p50Ms', 'p99Ms', 'maxMs'] as const;
  const medians = Object.fromEntries(names.map((n) => [n, Object.fromEntries(keys.map((k) => [k, median(runs[n]!.map((r) => r[k]))]))]));
  const result = { date: new Date().toISOString(), writes: WRITES, recalls: RECALLS + 1, loadAverage: { min: Math.min(...loads), max: Math.max(...loads) }, medians, runs };
  console.log(JSON.stringify({ loadAverage: result.loadAverage, medians }, null, 2));
  writeFileSync(fileURLToPath(new URL('./results/recall-after-writes.json', import.meta.url)), `${JSON.stringify(result, null, 2)}\n`);
}
