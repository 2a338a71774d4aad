/**
 * Write/read benchmark of @zeromem/core in Node on fake-indexeddb (in memory).
 *
 *   npx tsx test/bench/write-node.ts            # 3 runs (BENCH_RUNS=n to change)
 *
 * The same workloads as test/bench/write-chromium.ts, with the same functions
 * (test/e2e/harness/bench.ts), run in this process instead of a page:
 *  (a) single `remember` latency: 2,000 sequential writes after 200 warm-up, p50/p95/p99,
 *      next to raw Dexie `table.add` of the same rows into the same schema (fake-indexeddb
 *      has no disk, so there is no 'strict' durability to measure);
 *  (b) bulk import with `rememberMany` (chunks of 10k) at 10k and 100k records, next to raw
 *      Dexie `bulkAdd` of the same rows (same schema, and a primary-key-only schema);
 *  (c) `list(ns, { tags: { any: ['t7'] }, limit: 50 })` over 100k records (100 runs), next
 *      to the same index range read with raw Dexie.
 * Two differences from the Chromium run, both because rememberMany slows down with every
 * record already in the namespace on fake-indexeddb (its duplicate lookup, an `anyOf` over
 * [ns+contentHash], is a cursor that fake-indexeddb walks entry by entry: the second 10k
 * chunk takes tens of seconds):
 *  - rememberMany starts no further chunk once its timed calls took BENCH_CORE_BUDGET_S
 *    seconds (45 by default); the table says how many records it wrote and each chunk's time;
 *  - (c) reads the 100k database that raw `bulkAdd` filled (the rows rememberMany would
 *    write, in its schema), with `list()` and with the raw range alike, in alternating order.
 * BENCH_BIG_RUNS=n limits the 100k stage (and the list stage on it) to the first n runs.
 * Every workload gets a database of its own, deleted afterwards, followed by a full garbage
 * collection, so one workload's leftovers do not slow the next one down. Reports the median
 * of the runs and every run, as a Markdown table on stdout and JSON in
 * test/bench/results/write-node.json.
 */
import 'fake-indexeddb/auto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import * as bench from '../e2e/harness/bench.ts';
import { markdownTable, medianOf, ratio, summarize, throughput, type Latency, type Row, type Throughput } from './stats.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const BIG_RUNS = Math.min(RUNS, Number(process.env.BENCH_BIG_RUNS ?? RUNS));
const SINGLE = { warmup: 200, count: 2000 };
const BULK_CHUNK = 10_000;
const BULK_SIZES = [10_000, 100_000] as const;
const LIST = { runs: 100, tag: 't7', limit: 50 };
/** rememberMany starts no further 10k chunk once its timed calls took this long (see the header). */
const CORE_BUDGET_MS = Number(process.env.BENCH_CORE_BUDGET_S ?? 45) * 1000;
const here = dirname(fileURLToPath(import.meta.url));
const outFile = join(here, 'results', 'write-node.json');

// A full collection between workloads (tsx gives no way to pass --expose-gc to the script).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

interface RunResult {
  run: number;
  order: 'core first' | 'raw first';
  single: { remember: Latency; rawAdd: Latency; p50Ratio: number };
  bulk: Record<string, { rememberMany: Throughput & { records: number; chunkMs: number[] }; rawBulkAddSameSchema: Throughput; rawBulkAddKeyOnly: Throughput; ratioSameSchema: number }>;
  list: { list: Latency; rawRange: Latency; p50Ratio: number } | undefined;
  seconds: number;
  /** 1-minute load average of the machine before and after the run (other processes share the CPUs). */
  loadAverage: [number, number];
}

const log = (message: string) => process.stderr.write(`${message}\n`);

let databases = 0;
/** Runs `work` on a database name of its own, then deletes that database and collects garbage. */
async function inFreshDatabase<T>(work: (name: string) => Promise<T>): Promise<T> {
  const name = `bench-${process.pid}-${++databases}`;
  try {
    return await work(name);
  } finally {
    await bench.drop(name);
    gc();
  }
}

async function oneRun(run: number, big: boolean): Promise<RunResult> {
  const started = Date.now();
  const loadBefore = loadavg()[0]!;
  const coreFirst = run % 2 === 1; // alternate who goes first, so neither always gets the quieter machine
  const both = async <T>(core: () => Promise<T>, raw: () => Promise<T>): Promise<[T, T]> => {
    if (coreFirst) {
      const c = await core();
      return [c, await raw()];
    }
    const r = await raw();
    return [await core(), r];
  };

  let t = Date.now();
  const singleOptions = { durability: 'default' as const, ...SINGLE, seed: run };
  const [core, raw] = await both(
    () => inFreshDatabase((name) => bench.coreSingle({ name, ...singleOptions })),
    () => inFreshDatabase((name) => bench.rawSingle({ name, ...singleOptions })),
  );
  const remember = summarize(core);
  const rawAdd = summarize(raw);
  const single = { remember, rawAdd, p50Ratio: ratio(remember.p50, rawAdd.p50) };
  log(`  run ${run}: single: remember p50 ${remember.p50} ms, raw add p50 ${rawAdd.p50} ms (${((Date.now() - t) / 1000).toFixed(1)} s)`);

  const bulk = {} as RunResult['bulk'];
  let list: RunResult['list'];
  for (const total of BULK_SIZES) {
    if (total > 10_000 && !big) continue;
    t = Date.now();
    const options = { total, chunk: BULK_CHUNK, seed: run };
    const withList = total === 100_000;
    let listCore: number[] = [];
    let listRaw: number[] = [];
    const [core, raw] = await both(
      () => inFreshDatabase((name) => bench.coreBulk({ name, ...options, budgetMs: CORE_BUDGET_MS })),
      () =>
        inFreshDatabase(async (name) => {
          const result = await bench.rawBulk({ name, ...options, schema: 'same' });
          // Both list readers on this database: see the header on why not on the rememberMany one.
          if (withList) [listCore, listRaw] = await both(() => bench.coreList({ name, ...LIST }), () => bench.rawList({ name, ...LIST }));
          return result;
        }),
    );
    const keyOnly = await inFreshDatabase((name) => bench.rawBulk({ name, ...options, schema: 'minimal' }));
    bulk[String(total)] = {
      rememberMany: { ...throughput(core), records: core.records, chunkMs: core.chunkMs.map(Math.round) },
      rawBulkAddSameSchema: throughput(raw),
      rawBulkAddKeyOnly: throughput(keyOnly),
      ratioSameSchema: ratio(raw.recordsPerSecond, core.recordsPerSecond),
    };
    if (withList) {
      const l = summarize(listCore);
      const r = summarize(listRaw);
      list = { list: l, rawRange: r, p50Ratio: ratio(l.p50, r.p50) };
    }
    const partial = core.records < total ? ` over the first ${core.records} (chunks ${core.chunkMs.map(Math.round).join(', ')} ms)` : '';
    log(
      `  run ${run}: bulk ${total}: rememberMany ${Math.round(core.recordsPerSecond)}/s${partial}, raw bulkAdd ${Math.round(raw.recordsPerSecond)}/s, key-only ${Math.round(keyOnly.recordsPerSecond)}/s (${((Date.now() - t) / 1000).toFixed(1)} s)`,
    );
  }
  return {
    run,
    order: coreFirst ? 'core first' : 'raw first',
    single,
    bulk,
    list,
    seconds: Math.round((Date.now() - started) / 1000),
    loadAverage: [Math.round(loadBefore * 100) / 100, Math.round(loadavg()[0]! * 100) / 100],
  };
}

type Summary = Omit<RunResult, 'run' | 'order'>;

function table(runs: RunResult[], med: Summary): string {
  const rows: Array<Row<Summary>> = [];
  rows.push([`remember latency p50 / p95 / p99 (ms)`, (r) => `${r.single.remember.p50} / ${r.single.remember.p95} / ${r.single.remember.p99}`]);
  rows.push([`raw Dexie table.add p50 / p95 / p99 (ms)`, (r) => `${r.single.rawAdd.p50} / ${r.single.rawAdd.p95} / ${r.single.rawAdd.p99}`]);
  rows.push([`remember / raw add, p50 (x)`, (r) => r.single.p50Ratio]);
  for (const total of BULK_SIZES) {
    const k = String(total);
    const label = `${total / 1000}k`;
    rows.push([`rememberMany ${label} (records/s)`, (r) => r.bulk[k]?.rememberMany.recordsPerSecond]);
    rows.push([`rememberMany ${label}: records written / each 10k chunk (ms)`, (r) => r.bulk[k] && `${r.bulk[k].rememberMany.records} / ${r.bulk[k].rememberMany.chunkMs.join(', ')}`]);
    rows.push([`raw bulkAdd ${label}, same schema (records/s)`, (r) => r.bulk[k]?.rawBulkAddSameSchema.recordsPerSecond]);
    rows.push([`raw bulkAdd ${label}, key-only schema (records/s)`, (r) => r.bulk[k]?.rawBulkAddKeyOnly.recordsPerSecond]);
    rows.push([`raw same-schema / rememberMany ${label} (x)`, (r) => r.bulk[k]?.ratioSameSchema]);
  }
  rows.push([`list tags any t7 limit 50 over 100k, p50 / p95 (ms)`, (r) => r.list && `${r.list.list.p50} / ${r.list.list.p95}`]);
  rows.push([`raw Dexie same index range, p50 / p95 (ms)`, (r) => r.list && `${r.list.rawRange.p50} / ${r.list.rawRange.p95}`]);
  rows.push([`list / raw range, p50 (x)`, (r) => r.list?.p50Ratio]);
  rows.push([`run time (s)`, (r) => r.seconds]);
  rows.push([`machine load average before / after (1 min)`, (r) => `${r.loadAverage[0]} / ${r.loadAverage[1]}`]);
  return markdownTable(rows, med, runs);
}

/** The version of an installed package: its entry point resolved, then its package.json found above it. */
function versionOf(specifier: string): string {
  try {
    let dir = dirname(fileURLToPath(import.meta.resolve(specifier)));
    for (;;) {
      const manifest = join(dir, 'package.json');
      if (existsSync(manifest)) {
        const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
        if (name === specifier && version) return version;
      }
      if (dirname(dir) === dir) return 'unknown';
      dir = dirname(dir);
    }
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const wall = Date.now();
  log(`Node ${process.version}, fake-indexeddb ${versionOf('fake-indexeddb')}; ${RUNS} run(s), the 100k stage in ${BIG_RUNS}`);
  const runs: RunResult[] = [];
  for (let run = 1; run <= RUNS; run++) runs.push(await oneRun(run, run <= BIG_RUNS));
  const { run: _run, order: _order, ...med } = medianOf(runs);
  const result = {
    benchmark: 'write-node',
    generatedAt: new Date().toISOString(),
    environment: {
      node: process.version,
      v8: process.versions.v8,
      fakeIndexeddb: versionOf('fake-indexeddb'),
      os: `${platform()} ${release()}`,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      storage: 'fake-indexeddb (in memory, in this process); a database of its own per workload, deleted afterwards',
    },
    config: {
      runs: RUNS,
      runsWith100k: BIG_RUNS,
      single: SINGLE,
      bulkSizes: BULK_SIZES,
      bulkChunk: BULK_CHUNK,
      rememberManyBudgetMs: CORE_BUDGET_MS,
      list: LIST,
      listDatabase: 'the 100k raw-bulkAdd database (same schema, same rows), read by list() and by the raw range alike',
      recordShape: '~100-char content, 1-3 of 20 tags (t0..t19), metadata { i }, one namespace',
    },
    median: med,
    runs,
    wallSeconds: Math.round((Date.now() - wall) / 1000),
  };
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(result, null, 2)}\n`);
  const scope = BIG_RUNS === RUNS ? `median of ${RUNS} runs` : `median of ${RUNS} runs; 100k and list stages in ${BIG_RUNS}`;
  console.log(`## @zeromem/core write/read in Node ${process.version} on fake-indexeddb ${versionOf('fake-indexeddb')} (${cpus().length} CPUs, ${scope})\n`);
  console.log(table(runs, med));
  console.log(`\nJSON: ${outFile} (wall time ${result.wallSeconds} s)`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
