/**
 * The write/read benchmark of @zeromem/core, shared by test/bench/write-chromium.ts (real
 * Chromium IndexedDB) and test/bench/write-node.ts (Node on fake-indexeddb). Both run the
 * same workload functions (test/e2e/harness/bench.ts, where every timing is taken); what
 * differs is the `Executor` that calls them on a fresh store, and a few options below.
 *
 * Per run, every workload on a store of its own (so one workload's leftovers never slow
 * the next one down), core and raw Dexie taking turns at going first:
 *  (a) single `remember` latency: 2,000 sequential writes after 200 warm-up, p50/p95/p99,
 *      next to raw Dexie `table.add` of the same rows into the same schema; durability
 *      'default', and 'strict' too where there is a disk (`strict`);
 *  (b) bulk import with `rememberMany` (chunks of 10k) at 10k and 100k records, next to raw
 *      Dexie `bulkAdd` of the same rows (same schema, and a primary-key-only schema);
 *  (c) `list(ns, { tags: { any: ['t7'] }, limit: 50 })` over the 100k records (100 runs),
 *      next to the same index range read with raw Dexie.
 * BENCH_RUNS=n sets the number of runs (3 by default); BENCH_BIG_RUNS=n limits the 100k
 * stage (and the list stage on it) to the first n runs. Reports the median of the runs and
 * every run, as a Markdown table on stdout and JSON in test/bench/results/<benchmark>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Bench from '../e2e/harness/bench.ts';
import { markdownTable, medianOf, ratio, summarize, throughput, type Latency, type Row, type Throughput } from './stats.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const BIG_RUNS = Math.min(RUNS, Number(process.env.BENCH_BIG_RUNS ?? RUNS));
const SINGLE = { warmup: 200, count: 2000 };
const BULK_CHUNK = 10_000;
const BULK_SIZES = [10_000, 100_000] as const;
const LIST = { runs: 100, tag: 't7', limit: 50 };
const RECORD_SHAPE = '~100-char content, 1-3 of 20 tags (t0..t19), metadata { i }, one namespace';

type BenchApi = typeof Bench;
/** Argument and resolved result of each async workload function of harness/bench.ts. */
export type Fn = { [K in keyof BenchApi]: BenchApi[K] extends (arg: infer A) => Promise<infer R> ? [A, R] : never };
/** Calls one workload function (by name) on the store `Executor.fresh` handed out. */
export type Call = <K extends keyof Fn>(fn: K, arg: Fn[K][0]) => Promise<Fn[K][1]>;

/** Where the workloads run. */
export interface Executor {
  /** Runs `work` on a fresh store (`name` is the database to use there), then throws the store away. */
  fresh<T>(work: (call: Call, name: string) => Promise<T>): Promise<T>;
}

/** What a script tells the suite. */
export interface WriteSuite {
  /** `benchmark` in the JSON; the output is test/bench/results/<benchmark>.json. */
  benchmark: string;
  executor: Executor;
  /** Measure (a) with 'strict' durability too; `single` in the JSON is then keyed by durability. */
  strict: boolean;
  /** rememberMany starts no further chunk once its timed calls took this long (ms); its records and chunk times are then reported. */
  coreBudgetMs?: number;
  /** Set when (c) reads the 100k raw-bulkAdd database with both readers (instead of each its own); says why, for the JSON. */
  listDatabase?: string;
  /** Called once the wall clock runs: the engine for the log line, the JSON's `environment`, and the table heading given "N CPUs, scope". */
  describe(): Promise<{ log: string; environment: Record<string, unknown>; heading: (details: string) => string }>;
}

type Durability = 'default' | 'strict';
interface Single {
  remember: Latency;
  rawAdd: Latency;
  p50Ratio: number;
}

export interface RunResult {
  run: number;
  order: 'core first' | 'raw first';
  /** Keyed by durability when the suite measures 'strict' too. */
  single: Single | Record<Durability, Single>;
  bulk: Record<string, { rememberMany: Throughput & { records?: number; chunkMs?: number[] }; rawBulkAddSameSchema: Throughput; rawBulkAddKeyOnly: Throughput; ratioSameSchema: number }>;
  list: { list: Latency; rawRange: Latency; p50Ratio: number } | undefined;
  seconds: number;
  /** 1-minute load average of the machine before and after the run (other processes share the CPUs). */
  loadAverage: [number, number];
}

const log = (message: string) => process.stderr.write(`${message}\n`);
const durabilities = (suite: WriteSuite): Durability[] => (suite.strict ? ['default', 'strict'] : ['default']);
const singleAt = (single: RunResult['single'], d: Durability): Single => ('p50Ratio' in single ? single : single[d]);

async function oneRun(suite: WriteSuite, run: number, big: boolean): Promise<RunResult> {
  const { executor } = suite;
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

  const singles = {} as Record<Durability, Single>;
  for (const durability of durabilities(suite)) {
    const t = Date.now();
    const options = { durability, ...SINGLE, seed: run };
    const [core, raw] = await both(
      () => executor.fresh((call, name) => call('coreSingle', { name, ...options })),
      () => executor.fresh((call, name) => call('rawSingle', { name, ...options })),
    );
    const remember = summarize(core);
    const rawAdd = summarize(raw);
    singles[durability] = { remember, rawAdd, p50Ratio: ratio(remember.p50, rawAdd.p50) };
    const label = suite.strict ? `single ${durability}` : 'single';
    log(`  run ${run}: ${label}: remember p50 ${remember.p50} ms, raw add p50 ${rawAdd.p50} ms (${((Date.now() - t) / 1000).toFixed(1)} s)`);
  }

  const bulk = {} as RunResult['bulk'];
  let list: RunResult['list'];
  for (const total of BULK_SIZES) {
    if (total > 10_000 && !big) continue;
    const t = Date.now();
    const options = { total, chunk: BULK_CHUNK, seed: run };
    const withList = total === 100_000;
    const budget = suite.coreBudgetMs === undefined ? {} : { budgetMs: suite.coreBudgetMs };
    let listCore: number[] = [];
    let listRaw: number[] = [];
    const [core, raw] = await both(
      () =>
        executor.fresh(async (call, name) => {
          const result = await call('coreBulk', { name, ...options, ...budget });
          if (withList && !suite.listDatabase) listCore = await call('coreList', { name, ...LIST });
          return result;
        }),
      () =>
        executor.fresh(async (call, name) => {
          const result = await call('rawBulk', { name, ...options, schema: 'same' });
          if (withList && suite.listDatabase) {
            [listCore, listRaw] = await both(() => call('coreList', { name, ...LIST }), () => call('rawList', { name, ...LIST }));
          } else if (withList) listRaw = await call('rawList', { name, ...LIST });
          return result;
        }),
    );
    const keyOnly = await executor.fresh((call, name) => call('rawBulk', { name, ...options, schema: 'minimal' }));
    const chunkMs = core.chunkMs.map(Math.round);
    bulk[String(total)] = {
      rememberMany: suite.coreBudgetMs === undefined ? throughput(core) : { ...throughput(core), records: core.records, chunkMs },
      rawBulkAddSameSchema: throughput(raw),
      rawBulkAddKeyOnly: throughput(keyOnly),
      ratioSameSchema: ratio(raw.recordsPerSecond, core.recordsPerSecond),
    };
    if (withList) {
      const l = summarize(listCore);
      const r = summarize(listRaw);
      list = { list: l, rawRange: r, p50Ratio: ratio(l.p50, r.p50) };
    }
    const partial = core.records < total ? ` over the first ${core.records} (chunks ${chunkMs.join(', ')} ms)` : '';
    log(
      `  run ${run}: bulk ${total}: rememberMany ${Math.round(core.recordsPerSecond)}/s${partial}, raw bulkAdd ${Math.round(raw.recordsPerSecond)}/s, key-only ${Math.round(keyOnly.recordsPerSecond)}/s (${((Date.now() - t) / 1000).toFixed(1)} s)`,
    );
  }
  return {
    run,
    order: coreFirst ? 'core first' : 'raw first',
    single: suite.strict ? singles : singles.default,
    bulk,
    list,
    seconds: Math.round((Date.now() - started) / 1000),
    loadAverage: [Math.round(loadBefore * 100) / 100, Math.round(loadavg()[0]! * 100) / 100],
  };
}

type Summary = Omit<RunResult, 'run' | 'order'>;

function table(suite: WriteSuite, runs: RunResult[], med: Summary): string {
  const rows: Array<Row<Summary>> = [];
  for (const d of durabilities(suite)) {
    const [remember, raw] = suite.strict ? [`, durability ${d}`, `, ${d}`] : ['', ''];
    const s = (r: Summary) => singleAt(r.single, d);
    rows.push([`remember latency p50 / p95 / p99${remember} (ms)`, (r) => `${s(r).remember.p50} / ${s(r).remember.p95} / ${s(r).remember.p99}`]);
    rows.push([`raw Dexie table.add p50 / p95 / p99${raw} (ms)`, (r) => `${s(r).rawAdd.p50} / ${s(r).rawAdd.p95} / ${s(r).rawAdd.p99}`]);
    rows.push([`remember / raw add, p50 (x)`, (r) => s(r).p50Ratio]);
  }
  for (const total of BULK_SIZES) {
    const k = String(total);
    const label = `${total / 1000}k`;
    rows.push([`rememberMany ${label} (records/s)`, (r) => r.bulk[k]?.rememberMany.recordsPerSecond]);
    if (suite.coreBudgetMs !== undefined) {
      rows.push([`rememberMany ${label}: records written / each 10k chunk (ms)`, (r) => r.bulk[k] && `${r.bulk[k].rememberMany.records} / ${r.bulk[k].rememberMany.chunkMs?.join(', ')}`]);
    }
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

/** Runs the suite: every run, then the JSON file and the Markdown table. */
export async function runWriteSuite(suite: WriteSuite): Promise<void> {
  const wall = Date.now();
  const outFile = join(dirname(fileURLToPath(import.meta.url)), 'results', `${suite.benchmark}.json`);
  const { log: engine, environment, heading } = await suite.describe();
  log(`${engine}; ${RUNS} run(s), the 100k stage in ${BIG_RUNS}`);
  const runs: RunResult[] = [];
  for (let run = 1; run <= RUNS; run++) runs.push(await oneRun(suite, run, run <= BIG_RUNS));
  const { run: _run, order: _order, ...med } = medianOf(runs);
  const result = {
    benchmark: suite.benchmark,
    generatedAt: new Date().toISOString(),
    environment,
    config: {
      runs: RUNS,
      runsWith100k: BIG_RUNS,
      single: SINGLE,
      bulkSizes: BULK_SIZES,
      bulkChunk: BULK_CHUNK,
      ...(suite.coreBudgetMs !== undefined && { rememberManyBudgetMs: suite.coreBudgetMs }),
      list: LIST,
      ...(suite.listDatabase !== undefined && { listDatabase: suite.listDatabase }),
      recordShape: RECORD_SHAPE,
    },
    median: med,
    runs,
    wallSeconds: Math.round((Date.now() - wall) / 1000),
  };
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(result, null, 2)}\n`);
  const scope = BIG_RUNS === RUNS ? `median of ${RUNS} runs` : `median of ${RUNS} runs; 100k and list stages in ${BIG_RUNS}`;
  console.log(`${heading(`${cpus().length} CPUs, ${scope}`)}\n`);
  console.log(table(suite, runs, med));
  console.log(`\nJSON: ${outFile} (wall time ${result.wallSeconds} s)`);
}
