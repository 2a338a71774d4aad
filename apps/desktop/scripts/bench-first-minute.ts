/**
 * The web twin's first minute in Chromium, base against this checkout, alternating
 * (docs/BENCHMARKS.md "Web twin: first minute"). For each run and each build, a fresh
 * browser context opens the inspector and searches as soon as it can:
 * - views: navigation to the views (the tabs) on screen;
 * - recall: navigation to the first search answered;
 * - semantic: navigation to semantic search ready (the model loaded);
 * - the same on a second visit (reload), and the model bytes each visit fetched.
 *
 *   npx tsx apps/desktop/scripts/bench-first-minute.ts [--base main] [--runs 7]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { build, preview, type PreviewServer } from 'vite';
import { CHROMIUM_ARGS, findChromium, repoRoot } from '../../../test/e2e/browser.ts';
import { appRoot, rendererConfig } from '../build/renderer-config.ts';

const { values } = parseArgs({ options: { base: { type: 'string', default: 'main' }, runs: { type: 'string', default: '7' } } });
const runs = Number(values.runs);

/** Builds the renderer of `ref` (its src/ and index.html, this checkout's build plugins and packages), or of this checkout. */
async function buildOf(ref: string | null): Promise<string> {
  const outDir = mkdtempSync(join(tmpdir(), 'zeromem-first-minute-'));
  let root = appRoot;
  if (ref) {
    // Inside apps/desktop, so the copy resolves the same node_modules.
    root = join(appRoot, '.bench-base');
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root);
    const archive = execFileSync('git', ['archive', ref, 'apps/desktop/src', 'apps/desktop/index.html'], { cwd: repoRoot, maxBuffer: 1 << 28 });
    execFileSync('tar', ['-x', '-C', root, '--strip-components=2'], { input: archive });
  }
  await build({ ...rendererConfig(outDir), root });
  if (ref) rmSync(root, { recursive: true, force: true });
  return outDir;
}

interface Visit {
  views: number;
  recall: number;
  semantic: number;
  modelBytes: number;
}

async function visit(browser: Browser, url: string): Promise<[Visit, Visit]> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  let modelBytes = 0;
  page.on('requestfinished', (request) => {
    if (/\/zeromem-assets\/models\//.test(request.url())) void request.sizes().then((s) => (modelBytes += s.responseBodySize), () => undefined);
  });
  const once = async (): Promise<Visit> => {
    modelBytes = 0;
    await page.waitForSelector('nav.tabs', { timeout: 120_000 });
    const views = await page.evaluate(() => performance.now());
    await page.fill('#insp-search', 'window seat');
    await page.keyboard.press('Enter');
    await page.locator('h3', { hasText: '“window seat”' }).waitFor({ timeout: 120_000 });
    const recall = await page.evaluate(() => performance.now());
    // Base: the model loaded before the views; branch: the badge says when it is ready.
    await page.waitForFunction(() => !document.querySelector('.badge[data-semantic="loading"]'), undefined, { timeout: 120_000 });
    const semantic = await page.evaluate(() => performance.now());
    await page.waitForTimeout(300); // the last response sizes
    return { views, recall, semantic, modelBytes };
  };
  await page.goto(`${url}#/inspector`);
  const first = await once();
  await page.reload();
  const second = await once();
  await context.close();
  return [first, second];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const { path: executablePath, problem } = findChromium();
if (!executablePath) throw new Error(problem);
const dirs = { base: await buildOf(values.base), branch: await buildOf(null) };
const servers: PreviewServer[] = [];
const urls: Record<string, string> = {};
for (const [name, dir] of Object.entries(dirs)) {
  const server = await preview({ ...rendererConfig(dir), preview: { port: 0, host: '127.0.0.1', strictPort: false } });
  servers.push(server);
  urls[name] = server.resolvedUrls!.local[0]!;
}
const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
const results: Record<string, Array<[Visit, Visit]>> = { base: [], branch: [] };
for (let i = 0; i < runs; i++) {
  for (const name of i % 2 ? ['branch', 'base'] : ['base', 'branch']) results[name]!.push(await visit(browser, urls[name]!));
}
await browser.close();
for (const server of servers) await server.close();
for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });

console.log(`runs ${runs} each, alternating; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
console.log('visit   metric      base ms  branch ms  branch/base');
for (const [v, label] of [[0, 'first'], [1, 'second']] as const) {
  for (const metric of ['views', 'recall', 'semantic'] as const) {
    const b = median(results.base!.map((r) => r[v][metric]));
    const n = median(results.branch!.map((r) => r[v][metric]));
    console.log(`${label.padEnd(7)} ${metric.padEnd(10)} ${b.toFixed(0).padStart(8)} ${n.toFixed(0).padStart(10)} ${(n / b).toFixed(2).padStart(12)}`);
  }
  const bb = median(results.base!.map((r) => r[v].modelBytes));
  const nb = median(results.branch!.map((r) => r[v].modelBytes));
  console.log(`${label.padEnd(7)} model bytes ${String(bb).padStart(8)} ${String(nb).padStart(10)}`);
}
