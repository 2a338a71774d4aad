/**
 * Builds the web app once (into a temporary folder), serves it with Vite's preview server
 * on a free port, and starts Chromium (the harness of test/e2e finds it). Each device is
 * a browser context of its own: its own IndexedDB, like another machine.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { preview, type PreviewServer } from 'vite';
import { CHROMIUM_ARGS, findChromium } from '../../../../test/e2e/browser.ts';
import { buildRenderer } from '../../build/build-app.ts';
import { appRoot, rendererConfig } from '../../build/renderer-config.ts';

export interface AppHarness {
  url: string;
  /** The folder the web app was built into. */
  outDir: string;
  browser: Browser;
  /** A new device: a fresh browser context at this viewport. */
  newDevice(viewport?: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page }>;
  /** Console errors and page errors seen so far (every device). */
  errors: string[];
  close(): Promise<void>;
}

export async function startAppHarness(): Promise<AppHarness> {
  const { path: executablePath, problem } = findChromium();
  if (!executablePath) throw new Error(problem);
  const outDir = await mkdtemp(join(tmpdir(), 'zeromem-desktop-dist-'));
  let server: PreviewServer | undefined;
  let browser: Browser | undefined;
  try {
    await buildRenderer(outDir);
    server = await preview({ ...rendererConfig(outDir), preview: { port: 0, host: '127.0.0.1', strictPort: false } });
    const url = server.resolvedUrls?.local[0];
    if (!url) throw new Error('the preview server reported no URL');
    browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
    const errors: string[] = [];
    const liveBrowser = browser;
    const liveServer = server;
    return {
      url,
      outDir,
      browser,
      errors,
      async newDevice(viewport = { width: 1280, height: 800 }) {
        const context = await liveBrowser.newContext({ viewport });
        const page = await context.newPage();
        page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
        page.on('console', (msg) => {
          if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
        });
        await page.goto(url);
        await page.waitForSelector('.topbar', { timeout: 30_000 });
        return { context, page };
      },
      async close() {
        await liveBrowser.close().catch(() => undefined);
        await liveServer.close();
        await rm(outDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await browser?.close().catch(() => undefined);
    await server?.close().catch(() => undefined);
    await rm(outDir, { recursive: true, force: true });
    throw err;
  }
}

/** axe-core's source, to evaluate in a page (evaluation bypasses the page's CSP; a script tag would not). */
export async function axeSource(): Promise<string> {
  const require = createRequire(join(appRoot, 'package.json'));
  return readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** Runs axe on the page; returns the serious and critical violations. */
export async function seriousViolations(page: Page, source: string): Promise<AxeViolation[]> {
  await page.evaluate(source);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
}
