/**
 * Write/read benchmark of @zeromem/core in real Chromium IndexedDB (on-disk profile).
 *
 *   npx tsx test/bench/write-chromium.ts            # 3 runs (BENCH_RUNS=n to change)
 *
 * Per run, every workload in its own freshly launched Chromium with a fresh profile (so
 * LevelDB compaction left over from one workload never slows the next one down):
 *  (a) single `remember` latency: 2,000 sequential writes after 200 warm-up, p50/p95/p99,
 *      durability 'default' and 'strict'; next to raw Dexie `table.add` of the same rows
 *      into the same schema;
 *  (b) bulk import with `rememberMany` (chunks of 10k) at 10k and 100k records, next to raw
 *      Dexie `bulkAdd` of the same rows (same schema, and a primary-key-only schema);
 *  (c) `list(ns, { tags: { any: ['t7'] }, limit: 50 })` over the 100k records (100 runs),
 *      next to the same index range read with raw Dexie.
 * BENCH_BIG_RUNS=n limits the 100k stage (and the list stage on it) to the first n runs.
 * Timing happens in the page (performance.now(); Chromium coarsens it to 0.1 ms when the
 * page is not cross-origin isolated). Reports the median of the runs and every run, as a
 * Markdown table on stdout and JSON in test/bench/results/write-chromium.json.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { startHarness, type Harness } from '../e2e/browser.ts';
import type * as Bench from '../e2e/harness/bench.ts';
import { markdownTable, medianOf, ratio, summarize, throughput, type Latency, type Row, type Throughput } from './stats.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const BIG_RUNS = Math.min(RUNS, Number(process.env.BENCH_BIG_RUNS ?? RUNS));
const SINGLE = { warmup: 200, count: 2000 };
const BULK_CHUNK = 10_000;
const BULK_SIZES = [10_000, 100_000] as const;
const LIST = { runs: 100, tag: 't7', limit: 50 };
const outFile = join(dirname(fileURLToPath(import.meta.url)), 'results', 'write-chromium.json');

type BenchApi = typeof Bench;
type Fn = { [K in keyof BenchApi]: BenchApi[K] extends (arg: infer A) => Promise<infer R> ? [A, R] : never };

/** Calls a page-side benchmark function (kept trivial: Playwright serializes this arrow). */
function call<K extends keyof Fn>(page: Page, fn: K, arg: Fn[K][0]): Promise<Fn[K][1]> {
  return page.evaluate(([fn, arg]) => (window.zeromemBench as unknown as Record<string, (a: unknown) => Promise<unknown>>)[fn]!(arg), [fn, arg] as const) as Promise<Fn[K][1]>;
}

interface RunResult {
  run: number;
  order: 'core first' | 'raw first';
  single: Record<'default' | 'strict', { remember: Latency; rawAdd: Latency; p50Ratio: number }>;
  bulk: Record<string, { rememberMany: Throughput; rawBulkAddSameSchema: Throughput; rawBulkAddKeyOnly: Throughput; ratioSameSchema: number }>;
  list: { list: Latency; rawRange: Latency; p50Ratio: number } | undefined;
  seconds: number;
  /** 1-minute load average of the machine before and after the run (other processes share the CPUs). */
  loadAverage: [number, number];
}

const log = (message: string) => process.stderr.write(`${message}\n`);

/** Runs `work` in a freshly launched Chromium with a fresh profile, then throws both away. */
async function inFreshBrowser<T>(work: (page: Page, harness: Harness) => Promise<T>): Promise<T> {
  const harness = await startHarness();
  try {
    return await work(await harness.newPage(), harness);
  } finally {
    await harness.close();
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
  const name = 'bench';

  const single = {} as RunResult['single'];
  for (const durability of ['default', 'strict'] as const) {
    const t = Date.now();
    const options = { name, durability, ...SINGLE, seed: run };
    const [core, raw] = await both(
      () => inFreshBrowser((page) => call(page, 'coreSingle', options)),
      () => inFreshBrowser((page) => call(page, 'rawSingle', options)),
    );
    const remember = summarize(core);
    const rawAdd = summarize(raw);
    single[durability] = { remember, rawAdd, p50Ratio: ratio(remember.p50, rawAdd.p50) };
    log(`  run ${run}: single ${durability}: remember p50 ${remember.p50} ms, raw add p50 ${rawAdd.p50} ms (${((Date.now() - t) / 1000).toFixed(1)} s)`);
  }

  const bulk = {} as RunResult['bulk'];
  let list: RunResult['list'];
  for (const total of BULK_SIZES) {
    if (total > 10_000 && !big) continue;
    const t = Date.now();
    const options = { name, total, chunk: BULK_CHUNK, seed: run };
    const withList = total === 100_000;
    let listCore: number[] = [];
    let listRaw: number[] = [];
    const [core, raw] = await both(
      () =>
        inFreshBrowser(async (page) => {
          const result = await call(page, 'coreBulk', options);
          if (withList) listCore = await call(page, 'coreList', { name, ...LIST });
          return result;
        }),
      () =>
        inFreshBrowser(async (page) => {
          const result = await call(page, 'rawBulk', { ...options, schema: 'same' });
          if (withList) listRaw = await call(page, 'rawList', { name, ...LIST });
          return result;
        }),
    );
    const keyOnly = await inFreshBrowser((page) => call(page, 'rawBulk', { ...options, schema: 'minimal' }));
    bulk[String(total)] = {
      rememberMany: throughput(core),
      rawBulkAddSameSchema: throughput(raw),
      rawBulkAddKeyOnly: throughput(keyOnly),
      ratioSameSchema: ratio(raw.recordsPerSecond, core.recordsPerSecond),
    };
    if (withList) {
      const l = summarize(listCore);
      const r = summarize(listRaw);
      list = { list: l, rawRange: r, p50Ratio: ratio(l.p50, r.p50) };
    }
    log(
      `  run ${run}: bulk ${total}: rememberMany ${Math.round(core.recordsPerSecond)}/s, raw bulkAdd ${Math.round(raw.recordsPerSecond)}/s, key-only ${Math.round(keyOnly.recordsPerSecond)}/s (${((Date.now() - t) / 1000).toFixed(1)} s)`,
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
  for (const d of ['default', 'strict'] as const) {
    rows.push([`remember latency p50 / p95 / p99, durability ${d} (ms)`, (r) => `${r.single[d].remember.p50} / ${r.single[d].remember.p95} / ${r.single[d].remember.p99}`]);
    rows.push([`raw Dexie table.add p50 / p95 / p99, ${d} (ms)`, (r) => `${r.single[d].rawAdd.p50} / ${r.single[d].rawAdd.p95} / ${r.single[d].rawAdd.p99}`]);
    rows.push([`remember / raw add, p50 (x)`, (r) => r.single[d].p50Ratio]);
  }
  for (const total of BULK_SIZES) {
    const k = String(total);
    const label = `${total / 1000}k`;
    rows.push([`rememberMany ${label} (records/s)`, (r) => r.bulk[k]?.rememberMany.recordsPerSecond]);
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

async function main(): Promise<void> {
  const wall = Date.now();
  const { chromiumVersion, executablePath, environment } = await inFreshBrowser(async (page, harness) => {
    let version = 'unknown';
    try {
      version = execFileSync(harness.executablePath, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      /* keep unknown */
    }
    return { chromiumVersion: version, executablePath: harness.executablePath, environment: await page.evaluate(() => window.zeromemBench.environment()) };
  });
  log(`Chromium: ${chromiumVersion} at ${executablePath}; profiles on disk in ${tmpdir()}; ${RUNS} run(s), the 100k stage in ${BIG_RUNS}`);
  const runs: RunResult[] = [];
  for (let run = 1; run <= RUNS; run++) runs.push(await oneRun(run, run <= BIG_RUNS));
  const { run: _run, order: _order, ...med } = medianOf(runs);
  const result = {
    benchmark: 'write-chromium',
    generatedAt: new Date().toISOString(),
    environment: {
      chromium: chromiumVersion,
      userAgent: environment.userAgent,
      crossOriginIsolated: environment.crossOriginIsolated,
      node: process.version,
      os: `${platform()} ${release()}`,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      storage: `a fresh persistent Chromium profile per workload, in ${tmpdir()} (on disk)`,
    },
    config: {
      runs: RUNS,
      runsWith100k: BIG_RUNS,
      single: SINGLE,
      bulkSizes: BULK_SIZES,
      bulkChunk: BULK_CHUNK,
      list: LIST,
      recordShape: '~100-char content, 1-3 of 20 tags (t0..t19), metadata { i }, one namespace',
    },
    median: med,
    runs,
    wallSeconds: Math.round((Date.now() - wall) / 1000),
  };
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(result, null, 2)}\n`);
  const scope = BIG_RUNS === RUNS ? `median of ${RUNS} runs` : `median of ${RUNS} runs; 100k and list stages in ${BIG_RUNS}`;
  console.log(`## @zeromem/core write/read in Chromium IndexedDB (${chromiumVersion}, ${cpus().length} CPUs, ${scope})\n`);
  console.log(table(runs, med));
  console.log(`\nJSON: ${outFile} (wall time ${result.wallSeconds} s)`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
