/**
 * Open-to-first-recall of a large namespace: restoring the stored index snapshot against
 * rebuilding the index from every row and vector (index snapshots off), in one Node process
 * on the same fake-indexeddb database.
 *
 *   npx tsx test/bench/open-speed.ts            # one run; results/open-speed.json holds it
 *   npx tsx test/bench/open-speed.ts --append   # one more run, added to the runs in the JSON
 *
 * N memories (default 100k, BENCH_SIZES) of recall-data.ts written once; one instance
 * builds the index and writes its snapshot on close. Then, ROUNDS times each, alternating:
 * a new Memory with snapshots on (restore + catch-up) and one with snapshots off (rebuild),
 * timed from openMemory() to the first recall's result (hybrid, k = 10). Both must answer
 * alike. Also: the snapshot's write time on close and its size.
 */
import 'fake-indexeddb/auto';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openMemory } from '../../packages/core/src/index.ts';
import { MemoryDatabase } from '../../packages/core/src/store/dexie/database.ts';
import { NS, dataset, lookupEmbedder, writeBenchDatabase } from './recall-data.ts';
import { median } from './stats.ts';

const SIZES = (process.env.BENCH_SIZES ?? '100000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const APPEND = process.argv.includes('--append');
const outFile = join(dirname(fileURLToPath(import.meta.url)), 'results', 'open-speed.json');
const round = (x: number) => Math.round(x * 10) / 10;

async function openToFirstRecall(data: ReturnType<typeof dataset>, factory: IDBFactory, name: string, snapshots: boolean, query: string) {
  const t0 = performance.now();
  const memory = await openMemory({ embedder: lookupEmbedder(data), indexedDB: factory, IDBKeyRange, name, indexSnapshots: snapshots ? {} : false });
  const result = await memory.recall(NS, query, { k: 10, trackAccess: false });
  const ms = performance.now() - t0;
  if (result.vector !== 'used' || result.hits.length !== 10) throw new Error(`not a hybrid recall: ${result.vector}, ${result.hits.length} hits`);
  await memory.close();
  return { ms, ids: result.hits.map((hit) => hit.id).join() };
}

/** Bytes of a stored value: typed arrays by their length, strings at 2 bytes a character. */
function byteSize(value: unknown): number {
  if (typeof value === 'string') return value.length * 2;
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (value && typeof value === 'object') return Object.values(value).reduce((sum: number, v) => sum + byteSize(v), 0);
  return 8;
}

async function benchSize(n: number) {
  const log = (msg: string) => console.error(`[N=${n}] ${msg} (${Math.round(performance.now() / 1000)} s)`);
  const data = dataset(n, 0x0be7 + n, 2 * ROUNDS);
  const factory = new IDBFactory();
  const name = `open-bench-${n}`;
  const setup = await writeBenchDatabase(data, lookupEmbedder(data), factory, name);
  log(`written ${Math.round(setup.writeMs)} ms, embedded ${Math.round(setup.embedMs)} ms`);

  // One instance builds the index; its close writes the snapshot.
  const first = await openMemory({ embedder: lookupEmbedder(data), indexedDB: factory, IDBKeyRange, name, indexSnapshots: { delayMs: 3_600_000 } });
  let t = performance.now();
  await first.recall(NS, data.queries[0]!, { k: 10, trackAccess: false });
  const buildMs = performance.now() - t;
  await first.recall(NS, data.queries[1]!, { k: 10 }); // an access: the index changed since it was built
  t = performance.now();
  await first.close();
  const snapshotWriteMs = performance.now() - t;
  const raw = new MemoryDatabase(name, { indexedDB: factory, IDBKeyRange });
  await raw.open();
  const row = (await raw.indexSnapshots.get('u=bench'))!;
  raw.close();
  const snapshotMB = byteSize(row) / 1e6;
  log(`index built in ${Math.round(buildMs)} ms, snapshot written on close in ${Math.round(snapshotWriteMs)} ms (~${round(snapshotMB)} MB)`);

  const restored: number[] = [];
  const rebuilt: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const query = data.queries[2 + r]!;
    const a = await openToFirstRecall(data, factory, name, true, query);
    const b = await openToFirstRecall(data, factory, name, false, query);
    if (a.ids !== b.ids) throw new Error(`restored and rebuilt indexes answered differently for "${query}"`);
    restored.push(a.ms);
    rebuilt.push(b.ms);
    log(`round ${r + 1}: snapshot ${Math.round(a.ms)} ms, rebuild ${Math.round(b.ms)} ms`);
  }
  return {
    n,
    buildMs: Math.round(buildMs),
    snapshotWriteOnCloseMs: Math.round(snapshotWriteMs),
    snapshotMB: round(snapshotMB),
    openToFirstRecallMs: { snapshot: restored.map(Math.round), rebuild: rebuilt.map(Math.round) },
    medianMs: { snapshot: Math.round(median(restored)), rebuild: Math.round(median(rebuilt)) },
    speedup: round(median(rebuilt) / median(restored)),
  };
}

interface Run {
  run: number;
  at: string;
  loadAverageBefore: number[];
  loadAverageAfter: number[];
  sizes: Array<Awaited<ReturnType<typeof benchSize>>>;
}

function table(runs: Run[]): string {
  const lines = ['| run | N | load avg (1 min) | open-to-first-recall, snapshot: median (each) ms | rebuild: median (each) ms | rebuild / snapshot | snapshot write on close ms | snapshot MB |', '|---|---|---|---|---|---|---|---|'];
  for (const run of runs) {
    for (const s of run.sizes) {
      lines.push(
        `| ${run.run} | ${s.n.toLocaleString('en')} | ${run.loadAverageBefore[0]}–${run.loadAverageAfter[0]} | ${s.medianMs.snapshot} (${s.openToFirstRecallMs.snapshot.join(', ')}) | ${s.medianMs.rebuild} (${s.openToFirstRecallMs.rebuild.join(', ')}) | ${s.speedup}x | ${s.snapshotWriteOnCloseMs} | ${s.snapshotMB} |`,
      );
    }
  }
  return lines.join('\n');
}

async function main() {
  const loadBefore = loadavg().map((x) => Math.round(x * 100) / 100);
  const sizes = [];
  for (const n of SIZES) sizes.push(await benchSize(n));
  const previous = APPEND && existsSync(outFile) ? (JSON.parse(readFileSync(outFile, 'utf8')) as { runs: Run[] }).runs : [];
  const run: Run = { run: previous.length + 1, at: new Date().toISOString(), loadAverageBefore: loadBefore, loadAverageAfter: loadavg().map((x) => Math.round(x * 100) / 100), sizes };
  const runs = [...previous, run];
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(
    outFile,
    `${JSON.stringify(
      {
        benchmark: 'open-speed',
        command: 'npx tsx test/bench/open-speed.ts [--append]',
        environment: { node: process.version, os: `${platform()} ${release()}`, cpus: cpus().length, cpuModel: cpus()[0]?.model },
        config: { sizes: SIZES, rounds: ROUNDS, k: 10 },
        runs,
      },
      null,
      1,
    )}\n`,
  );
  console.log(table(runs));
}

await main();
