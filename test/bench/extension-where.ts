/**
 * Where the SDK runs best inside an MV3 extension: the service worker, an offscreen
 * document, or the side panel (an extension page), in real Chromium (new headless mode).
 *
 *   npx tsx test/bench/extension-where.ts            # 5 runs (BENCH_RUNS=n to change)
 *
 * Builds a small extension (test/bench/extension-where/) whose three placements run the
 * same code on the same extension IndexedDB (300 memories seeded once): open the memory,
 * recall, build a context (a reply's path). Per run and placement, cold:
 * - service worker: the worker is stopped (DevTools `ServiceWorker.stopWorker`), then a
 *   message from a page wakes it; timed from the message to the answer. Its script is one
 *   bundle with the tokenizer inlined (a service worker refuses `import()`); it cannot start
 *   the embedder's Web Worker (no `Worker` in service workers), so it recalls by words only.
 * - offscreen document: created (`chrome.offscreen.createDocument`), asked over a
 *   BroadcastChannel; timed from the create call to the answer. With and without embedder.
 * - side panel: the page opened in a new tab; timed from navigation start to the answer.
 *   With and without embedder.
 * JS heap after the first recall (`performance.memory.usedJSHeapSize`, precise with
 * --enable-precise-memory-info; documents only, the embedder's worker not included).
 * Placements run in a rotating order in each run. Prints a Markdown table of medians (and
 * every run); JSON in test/bench/results/extension-where.json.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { cpus, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { build } from 'vite';
import { bundledModelsDir, onnxWasmFiles } from '@zeromem/embed-transformers';
import { CHROMIUM_ARGS, findChromium } from '../e2e/browser.ts';

const here = dirname(fileURLToPath(import.meta.url));
const source = join(here, 'extension-where');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SEED = 300;

type Row = Record<string, number | null>;
const PLACEMENTS = ['service worker', 'offscreen', 'offscreen + embedder', 'side panel', 'side panel + embedder'] as const;
type Placement = (typeof PLACEMENTS)[number];

async function buildExtension(outDir: string): Promise<void> {
  await build({
    configFile: false,
    logLevel: 'warn',
    root: source,
    worker: { format: 'es' },
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      rollupOptions: { input: { panel: join(source, 'panel.html'), offscreen: join(source, 'offscreen.html'), control: join(source, 'control.html') } },
    },
  });
  await build({
    configFile: false,
    logLevel: 'warn',
    root: source,
    build: {
      outDir,
      emptyOutDir: false,
      target: 'es2022',
      lib: { entry: join(source, 'service-worker.ts'), formats: ['es'], fileName: () => 'service-worker.js' },
      rollupOptions: { output: { inlineDynamicImports: true } },
    },
  });
  cpSync(bundledModelsDir(), join(outDir, 'models'), { recursive: true });
  mkdirSync(join(outDir, 'ort'), { recursive: true });
  for (const file of onnxWasmFiles().filter((f) => f.includes('.jsep.'))) cpSync(file, join(outDir, 'ort', basename(file)));
  const manifest = {
    manifest_version: 3,
    name: 'zeromem placement benchmark',
    version: '0.0.1',
    permissions: ['offscreen'],
    background: { service_worker: 'service-worker.js', type: 'module' },
    content_security_policy: { extension_pages: "script-src 'self' 'wasm-unsafe-eval'; object-src 'self'" },
  };
  writeFileSync(join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2));
}

async function stopServiceWorker(context: BrowserContext, page: Page, extensionId: string): Promise<void> {
  const cdp = await context.newCDPSession(page);
  const versions = new Map<string, string>();
  let resolveStopped: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let target: string | undefined;
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions: list }: { versions: Array<{ versionId: string; runningStatus: string; scriptURL: string }> }) => {
    for (const v of list) {
      if (!v.scriptURL.startsWith(`chrome-extension://${extensionId}/`)) continue;
      versions.set(v.versionId, v.runningStatus);
      if (v.versionId === target && v.runningStatus === 'stopped') resolveStopped();
    }
  });
  await cdp.send('ServiceWorker.enable');
  await new Promise((resolve) => setTimeout(resolve, 300));
  target = [...versions.keys()].at(-1);
  if (!target) throw new Error('no service worker version');
  if (versions.get(target) === 'stopped') resolveStopped();
  else await cdp.send('ServiceWorker.stopWorker', { versionId: target });
  await stopped;
  await cdp.detach();
}

async function panelRun(context: BrowserContext, extensionId: string, query: string): Promise<Row & { error?: string }> {
  const page = await context.newPage();
  try {
    await page.goto(`chrome-extension://${extensionId}/panel.html?${query}`);
    await page.waitForFunction(() => (window as unknown as { benchResult?: unknown }).benchResult !== undefined, undefined, { timeout: 300_000 });
    const { error, ...timings } = await page.evaluate(() => (window as unknown as { benchResult: Row & { error?: string } }).benchResult);
    if (error) throw new Error(error);
    return { ...(timings as Row), totalMs: (timings as Row).sinceNavigationMs ?? null };
  } finally {
    await page.close();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  const { path: executablePath, problem } = findChromium();
  if (!executablePath) throw new Error(problem);
  const work = mkdtempSync(join(tmpdir(), 'zeromem-extension-where-'));
  const extensionDir = join(work, 'extension');
  try {
    await buildExtension(extensionDir);
    const context = await chromium.launchPersistentContext(join(work, 'profile'), {
      executablePath,
      headless: true,
      args: [...CHROMIUM_ARGS, '--enable-precise-memory-info', `--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`],
    });
    try {
      const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 120_000 }));
      const extensionId = new URL(worker.url()).host;
      console.error(`seeded ${JSON.stringify(await panelRun(context, extensionId, `seed=${SEED}&embedder`))}`);
      const control = await context.newPage();
      await control.goto(`chrome-extension://${extensionId}/control.html`);
      await control.waitForFunction(() => 'bench' in window);
      type Bench = { serviceWorker(): Promise<Row>; offscreen(embedder: boolean): Promise<Row> };
      const call = (fn: 'serviceWorker' | 'offscreen', embedder = false) =>
        control.evaluate(([fn, embedder]) => {
          const bench = (window as unknown as { bench: Bench }).bench;
          return fn === 'serviceWorker' ? bench.serviceWorker() : bench.offscreen(embedder as boolean);
        }, [fn, embedder] as const) as Promise<Row & { error?: string }>;

      const runs: Array<Record<Placement, Row>> = [];
      for (let run = 0; run < RUNS; run++) {
        const results = {} as Record<Placement, Row>;
        const order = PLACEMENTS.map((_, i) => PLACEMENTS[(i + run) % PLACEMENTS.length]!);
        for (const placement of order) {
          let row: Row & { error?: string };
          if (placement === 'service worker') {
            await stopServiceWorker(context, control, extensionId);
            row = await call('serviceWorker');
          } else if (placement.startsWith('offscreen')) {
            row = await call('offscreen', placement.endsWith('embedder'));
          } else {
            row = await panelRun(context, extensionId, `run${placement.endsWith('embedder') ? '&embedder' : ''}`);
          }
          if (row.error) throw new Error(`${placement}: ${row.error}`);
          results[placement] = row;
        }
        runs.push(results);
        console.error(`run ${run + 1}/${RUNS}: ${PLACEMENTS.map((p) => `${p} ${results[p].totalMs!.toFixed(0)} ms`).join(', ')}`);
      }

      const fmt = (x: number | null | undefined, digits = 0) => (x === null || x === undefined ? '—' : x.toFixed(digits));
      const lines = [
        `Chromium, ${cpus().length} cores, ${RUNS} runs, ${SEED} memories; medians (every run's total in brackets).`,
        '',
        '| placement | first recall + context, cold (ms) | script evaluated (ms) | open (ms) | recall (ms) | context (ms) | JS heap after (MB) |',
        '|---|---|---|---|---|---|---|',
      ];
      const summary: Record<string, Record<string, number | null>> = {};
      for (const placement of PLACEMENTS) {
        const rows = runs.map((r) => r[placement]);
        const med = (key: string) => (rows.every((r) => typeof r[key] === 'number') ? median(rows.map((r) => r[key] as number)) : null);
        summary[placement] = { totalMs: med('totalMs'), evaluatedAt: med('evaluatedAt'), openMs: med('openMs'), recallMs: med('recallMs'), contextMs: med('contextMs'), heapBytes: med('heapBytes') };
        const s = summary[placement]!;
        lines.push(
          `| ${placement} | ${fmt(s.totalMs)} [${rows.map((r) => fmt(r.totalMs)).join(', ')}] | ${fmt(s.evaluatedAt)} | ${fmt(s.openMs)} | ${fmt(s.recallMs)} | ${fmt(s.contextMs)} | ${typeof s.heapBytes === 'number' ? (s.heapBytes / 1e6).toFixed(1) : '—'} |`,
        );
      }
      console.log(lines.join('\n'));
      mkdirSync(join(here, 'results'), { recursive: true });
      writeFileSync(join(here, 'results', 'extension-where.json'), JSON.stringify({ date: new Date().toISOString(), cores: cpus().length, runs: RUNS, seed: SEED, summary, every: runs }, null, 2));
    } finally {
      await context.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
