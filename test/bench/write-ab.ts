/**
 * The write path of this checkout against another checkout's, in one process, taking
 * turns (A B B A ...), so both see the same machine load: `rememberMany` of 10k records
 * and 1,000 sequential `remember` acks (after 100 warm-up), on disk (`openMemory({ name,
 * directory })`, durability 'relaxed' for the acks so the disk's fsync does not drown the
 * verb) and on in-memory fake-indexeddb. Per step: wall time, and the process's CPU time
 * (user + system), which other jobs on the machine inflate much less than wall time.
 *
 *   npx tsx --conditions=development test/bench/write-ab.ts <other checkout root> [rounds=4]
 *
 * The other checkout needs its own packages/core/src and the same dependencies (for
 * example `git worktree add` of an older commit and a pnpm install, or a `git archive`
 * of it whose node_modules link to this one's). Prints a Markdown table: medians over
 * rounds, each B/A ratio taken within a round.
 */
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { openMemory as OpenMemory } from '../../packages/core/src/index.node.ts';
import { dataset } from './recall-data.ts';
import { median } from './stats.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const other = process.argv[2];
if (!other) throw new Error('usage: write-ab.ts <other checkout root> [rounds]');
const ROUNDS = Number(process.argv[3] ?? 4);
type Open = typeof OpenMemory;
const load = async (root: string): Promise<Open> => ((await import(pathToFileURL(join(root, 'packages/core/src/index.node.ts')).href)) as { openMemory: Open }).openMemory;
const versions: Record<'A' | 'B', Open> = { A: await load(resolve(other)), B: await load(resolve(import.meta.dirname, '../..')) };

const NS = { userId: 'bench' };
const texts = dataset(11_100, 0x5eed, 0).texts;
const bulk = texts.slice(0, 10_000).map((content) => ({ namespace: NS, content }));
const singles = texts.slice(10_000);

interface Cost {
  wallMs: number;
  cpuMs: number;
}

async function timed(work: () => Promise<void>): Promise<Cost> {
  gc();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await work();
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

async function step(open: Open, kind: 'disk' | 'fake', what: 'import' | 'ack'): Promise<Cost & { ackP50?: number }> {
  const directory = mkdtempSync(join(tmpdir(), 'zeromem-ab-'));
  const memory =
    kind === 'fake'
      ? await open({ name: 'ab', indexedDB: new IDBFactory(), IDBKeyRange })
      : await open({ name: 'ab', directory, durability: 'relaxed' });
  try {
    if (what === 'import') return await timed(async () => void (await memory.rememberMany(bulk)));
    const samples: number[] = [];
    const cost = await timed(async () => {
      for (const [i, content] of singles.entries()) {
        const t0 = performance.now();
        await memory.remember({ namespace: NS, content });
        if (i >= 100) samples.push(performance.now() - t0);
      }
    });
    return { ...cost, ackP50: median(samples) };
  } finally {
    await memory.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

const steps = [
  ['import', 'disk'],
  ['import', 'fake'],
  ['ack', 'disk'],
  ['ack', 'fake'],
] as const;
const results = new Map<string, Array<Record<'A' | 'B', Cost & { ackP50?: number }>>>();
const loadBefore = loadavg()[0]!;
for (let round = 0; round < ROUNDS; round++) {
  for (const [what, kind] of steps) {
    const order = round % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const);
    const pair = {} as Record<'A' | 'B', Cost & { ackP50?: number }>;
    for (const version of order) pair[version] = await step(versions[version], kind, what);
    const label = `${what} ${kind}`;
    results.set(label, [...(results.get(label) ?? []), pair]);
    console.error(`round ${round + 1} ${label}: A ${pair.A.wallMs.toFixed(0)} ms, B ${pair.B.wallMs.toFixed(0)} ms (load ${loadavg()[0]!.toFixed(1)})`);
  }
}

const r2 = (x: number) => Math.round(x * 100) / 100;
const r0 = (x: number) => Math.round(x);
console.log(`A = ${resolve(other)}, B = this checkout; ${ROUNDS} rounds, load ${loadBefore.toFixed(1)}-${loadavg()[0]!.toFixed(1)}; medians over rounds\n`);
console.log('| step | A | B | B/A (median of per-round ratios) |\n|---|---|---|---|');
for (const [label, pairs] of results) {
  const med = (pick: (c: Cost & { ackP50?: number }) => number, v: 'A' | 'B') => median(pairs.map((p) => pick(p[v])));
  const ratio = (pick: (c: Cost & { ackP50?: number }) => number) => r2(median(pairs.map((p) => pick(p.B) / pick(p.A))));
  if (label.startsWith('import')) {
    const rate = (c: Cost) => (bulk.length / c.wallMs) * 1000;
    const cpuPer = (c: Cost) => (c.cpuMs * 1000) / bulk.length;
    console.log(`| ${label}: records/s (wall) | ${r0(med(rate, 'A'))} | ${r0(med(rate, 'B'))} | ${ratio(rate)} |`);
    console.log(`| ${label}: CPU µs per record | ${r0(med(cpuPer, 'A'))} | ${r0(med(cpuPer, 'B'))} | ${ratio(cpuPer)} |`);
  } else {
    const p50 = (c: Cost & { ackP50?: number }) => c.ackP50!;
    const cpuPer = (c: Cost) => (c.cpuMs * 1000) / singles.length;
    console.log(`| ${label}: ack p50 (ms) | ${med(p50, 'A').toFixed(3)} | ${med(p50, 'B').toFixed(3)} | ${ratio(p50)} |`);
    console.log(`| ${label}: CPU µs per remember | ${r0(med(cpuPer, 'A'))} | ${r0(med(cpuPer, 'B'))} | ${ratio(cpuPer)} |`);
  }
}
