/**
 * buildContext speed over a growing namespace, in Node (fake-indexeddb) and in real
 * Chromium IndexedDB (on-disk profile, a fresh browser per run).
 *
 *   npx tsx --conditions=development test/bench/context-speed.ts        # both, 1k/10k/100k, 3 runs
 *   BENCH_TARGET=node BENCH_SIZES=1000,10000 BENCH_RUNS=5 npx tsx --conditions=development test/bench/context-speed.ts
 *
 * `--conditions=development`: the full-history part reads core's internals from its
 * sources, so core must be loaded from them too (the built `dist` is another module with
 * its own internals); the workload throws when it cannot reach them.
 *
 * The workload (test/e2e/harness/context-bench.ts): a namespace of N memories and a
 * 20-turn conversation; per step, after a new turn each: the whole buildContext (3-word
 * query, budget 300, full history on), the full-history part alone (history counts caught
 * up and read), the build without the full history, and the session layer's list alone.
 * BENCH_BUILDS sets the steps per run (30; 10 at 100k). Reports medians over runs of each
 * run's p50 (and the build's p95), the cold first build (search index and history counts
 * from the store), and every run; Markdown on stdout, JSON in
 * test/bench/results/context-speed.json.
 */
import 'fake-indexeddb/auto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHarness } from '../e2e/browser.ts';
import { contextSpeed, type ContextSpeedOptions, type ContextSpeedResult } from '../e2e/harness/context-bench.ts';
import { median, summarize } from './stats.ts';

const TARGETS = (process.env.BENCH_TARGET ?? 'node,chromium').split(',') as Array<'node' | 'chromium'>;
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const buildsFor = (records: number) => Number(process.env.BENCH_BUILDS ?? (records >= 100_000 ? 10 : 30));

interface RunSummary {
  run: number;
  buildP50: number;
  buildP95: number;
  fullHistoryP50: number;
  withoutHistoryP50: number;
  sessionListP50: number;
  coldBuildMs: number;
  fillMs: number;
  fullHistoryTokens: number;
  contextTokens: number;
  loadAverage: [number, number];
}

function summarizeRun(run: number, result: ContextSpeedResult, loadBefore: number): RunSummary {
  const build = summarize(result.build);
  return {
    run,
    buildP50: build.p50,
    buildP95: build.p95,
    fullHistoryP50: summarize(result.fullHistory).p50,
    withoutHistoryP50: summarize(result.buildWithoutHistory).p50,
    sessionListP50: summarize(result.sessionList).p50,
    coldBuildMs: Math.round(result.coldBuildMs),
    fillMs: Math.round(result.fillMs),
    fullHistoryTokens: result.fullHistoryTokens,
    contextTokens: result.contextTokens,
    loadAverage: [loadBefore, Math.round(loadavg()[0]! * 10) / 10],
  };
}

let databases = 0;
async function inNode(options: Omit<ContextSpeedOptions, 'name'>): Promise<ContextSpeedResult> {
  const name = `context-bench-${process.pid}-${++databases}`;
  try {
    return await contextSpeed({ ...options, name });
  } finally {
    await new Promise<void>((resolve) => {
      const request = indexedDB.deleteDatabase(name);
      request.onsuccess = request.onerror = () => resolve();
    });
  }
}

async function inChromium(options: Omit<ContextSpeedOptions, 'name'>): Promise<ContextSpeedResult> {
  const harness = await startHarness();
  try {
    const page = await harness.newPage();
    return await page.evaluate((o) => window.zeromemContextBench.contextSpeed({ ...o, name: 'context-bench' }), options);
  } finally {
    await harness.close();
  }
}

async function main(): Promise<void> {
  const results: Record<string, Record<string, { median: Omit<RunSummary, 'run' | 'loadAverage'>; runs: RunSummary[] }>> = {};
  const started = Date.now();
  for (const target of TARGETS) {
    results[target] = {};
    for (const records of SIZES) {
      const runs: RunSummary[] = [];
      for (let run = 1; run <= RUNS; run++) {
        const load = Math.round(loadavg()[0]! * 10) / 10;
        const options = { records, builds: buildsFor(records), seed: run };
        const result = target === 'node' ? await inNode(options) : await inChromium(options);
        runs.push(summarizeRun(run, result, load));
        const last = runs.at(-1)!;
        console.error(`${target} ${records}: run ${run}: build p50 ${last.buildP50} ms, full history ${last.fullHistoryP50} ms, without history ${last.withoutHistoryP50} ms, session list ${last.sessionListP50} ms, cold ${last.coldBuildMs} ms (load ${last.loadAverage.join(' -> ')})`);
      }
      const med = (field: keyof Omit<RunSummary, 'run' | 'loadAverage'>) => median(runs.map((r) => r[field]));
      results[target]![records] = {
        median: {
          buildP50: med('buildP50'),
          buildP95: med('buildP95'),
          withoutHistoryP50: med('withoutHistoryP50'),
          sessionListP50: med('sessionListP50'),
          fullHistoryP50: med('fullHistoryP50'),
          coldBuildMs: med('coldBuildMs'),
          fillMs: med('fillMs'),
          fullHistoryTokens: med('fullHistoryTokens'),
          contextTokens: med('contextTokens'),
        },
        runs,
      };
    }
  }

  const lines = [
    `## buildContext speed (${RUNS} runs, medians of each run's p50; ${cpus().length} CPUs, load average ${loadavg()[0]!.toFixed(1)})`,
    '',
    '| Where | records | build p50 / p95 (ms) | full-history part p50 (ms) | build without full history p50 (ms) | session list p50 (ms) | cold first build (ms) | build p50 per run (ms) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const [target, bySize] of Object.entries(results)) {
    for (const [records, { median: m, runs }] of Object.entries(bySize)) {
      lines.push(`| ${target} | ${Number(records).toLocaleString('en')} | ${m.buildP50} / ${m.buildP95} | ${m.fullHistoryP50} | ${m.withoutHistoryP50} | ${m.sessionListP50} | ${m.coldBuildMs} | ${runs.map((r) => r.buildP50).join(', ')} |`);
    }
  }
  console.log(lines.join('\n'));
  const out = join(dirname(fileURLToPath(import.meta.url)), 'results', 'context-speed.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ benchmark: 'context-speed', date: new Date().toISOString(), seconds: Math.round((Date.now() - started) / 1000), environment: { node: process.version, os: `${platform()} ${release()}`, cpus: cpus().length, cpuModel: cpus()[0]?.model }, results }, null, 2)}\n`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
