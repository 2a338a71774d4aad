/**
 * Write/read benchmark of @zeromem/core in real Chromium IndexedDB (on-disk profile).
 *
 *   npx tsx test/bench/write-chromium.ts            # 3 runs (BENCH_RUNS=n to change)
 *
 * The workloads, runs and knobs (BENCH_RUNS, BENCH_BIG_RUNS) are in test/bench/write-suite.ts,
 * shared with write-node.ts. Here every workload runs in its own freshly launched Chromium with a
 * fresh profile (so LevelDB compaction left over from one workload never slows the next one
 * down), and (a) is measured with durability 'default' and 'strict'.
 * Timing happens in the page (performance.now(); Chromium coarsens it to 0.1 ms when the
 * page is not cross-origin isolated). Reports the median of the runs and every run, as a
 * Markdown table on stdout and JSON in test/bench/results/write-chromium.json.
 */
import { execFileSync } from 'node:child_process';
import { cpus, platform, release, tmpdir } from 'node:os';
import type { Page } from 'playwright-core';
import { startHarness, type Harness } from '../e2e/browser.ts';
import { runWriteSuite, type Call, type Executor, type Fn } from './write-suite.ts';

/** Calls a page-side benchmark function (kept trivial: Playwright serializes this arrow). */
function callIn(page: Page): Call {
  return <K extends keyof Fn>(fn: K, arg: Fn[K][0]) =>
    page.evaluate(([fn, arg]) => (window.zeromemBench as unknown as Record<string, (a: unknown) => Promise<unknown>>)[fn]!(arg), [fn, arg] as const) as Promise<Fn[K][1]>;
}

/** Runs `work` in a freshly launched Chromium with a fresh profile, then throws both away. */
async function inFreshBrowser<T>(work: (page: Page, harness: Harness) => Promise<T>): Promise<T> {
  const harness = await startHarness();
  try {
    return await work(await harness.newPage(), harness);
  } finally {
    await harness.close();
  }
}

const chromium: Executor = { fresh: (work) => inFreshBrowser((page) => work(callIn(page), 'bench')) };

runWriteSuite({
  benchmark: 'write-chromium',
  executor: chromium,
  strict: true,
  async describe() {
    const { chromiumVersion, executablePath, environment } = await inFreshBrowser(async (page, harness) => {
      let version = 'unknown';
      try {
        version = execFileSync(harness.executablePath, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      } catch {
        /* keep unknown */
      }
      return { chromiumVersion: version, executablePath: harness.executablePath, environment: await page.evaluate(() => window.zeromemBench.environment()) };
    });
    return {
      log: `Chromium: ${chromiumVersion} at ${executablePath}; profiles on disk in ${tmpdir()}`,
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
      heading: (details) => `## @zeromem/core write/read in Chromium IndexedDB (${chromiumVersion}, ${details})`,
    };
  },
}).catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
