/**
 * Real-Chromium harness for the browser tests and the Chromium benchmark.
 *
 * Starts a Vite dev server on test/e2e/harness (a page that loads @zeromem/core and
 * exposes it as `window.zeromem`) and drives a Debian/system Chromium with playwright-core.
 * Chromium runs with a persistent, on-disk profile (a fresh temporary user-data dir unless
 * one is given): Playwright's ordinary `browser.newContext()` is an off-the-record profile
 * whose IndexedDB lives in memory, which would make persistence and durability figures
 * meaningless.
 *
 * Chromium is found at $CHROMIUM_PATH, else /usr/bin/chromium, /usr/bin/chromium-browser,
 * /usr/bin/google-chrome. Without one the browser tests are skipped, unless
 * ZEROMEM_REQUIRE_BROWSER=1 (CI), where they fail.
 */
import { existsSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { embedderAssets } from './embedder-assets.ts';

const here = dirname(fileURLToPath(import.meta.url));
/** The repository root. */
export const repoRoot = resolve(here, '../..');
/** The page's directory (Vite root). */
export const harnessRoot = join(here, 'harness');

/** Candidate executables, in order, after $CHROMIUM_PATH. */
export const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** Flags for a quiet, offline, headless Chromium in a container. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-quic',
  '--no-first-run',
  '--disable-sync',
];

const INSTALL_HINT = 'Install it with `apt-get install -y chromium` (Debian/Ubuntu) or set CHROMIUM_PATH to a Chromium/Chrome executable.';

/** Where Chromium is, or why there is none. */
export interface ChromiumLookup {
  path: string | undefined;
  /** Set when `path` is undefined, or when CHROMIUM_PATH points nowhere. */
  problem: string | undefined;
}

/** Finds the Chromium executable (no side effects). */
export function findChromium(env: NodeJS.ProcessEnv = process.env): ChromiumLookup {
  const fromEnv = env.CHROMIUM_PATH?.trim();
  if (fromEnv) {
    // An explicit path that does not exist is a misconfiguration: never fall back silently.
    return existsSync(fromEnv) ? { path: fromEnv, problem: undefined } : { path: undefined, problem: `CHROMIUM_PATH=${fromEnv} does not exist. ${INSTALL_HINT}` };
  }
  const found = CHROMIUM_CANDIDATES.find((candidate) => existsSync(candidate));
  if (found) return { path: found, problem: undefined };
  return { path: undefined, problem: `No Chromium found (looked at $CHROMIUM_PATH, ${CHROMIUM_CANDIDATES.join(', ')}). ${INSTALL_HINT}` };
}

/** True when a missing browser must fail the run (CI) instead of skipping it. */
export function browserRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.ZEROMEM_REQUIRE_BROWSER === '1';
}

/**
 * For `describe.skipIf(skipBrowserTests(import.meta.url))`: true (after printing one line
 * saying why) when there is no Chromium and it is not required. When it is required, the
 * suite runs and `startHarness()` fails with the install hint.
 */
export function skipBrowserTests(suite: string): boolean {
  const { path, problem } = findChromium();
  if (path) return false;
  if (browserRequired()) return false;
  const name = suite.startsWith('file:') ? fileURLToPath(suite).slice(repoRoot.length + 1) : suite;
  console.warn(`[zeromem] skipping ${name}: ${problem} (set ZEROMEM_REQUIRE_BROWSER=1 to make this a failure)`);
  return true;
}

/** A running harness: the Vite server and a Chromium with a persistent profile. */
export interface Harness {
  /** The harness page URL (http://127.0.0.1:<port>/). */
  readonly url: string;
  /** The on-disk profile directory. */
  readonly userDataDir: string;
  /** The executable in use. */
  readonly executablePath: string;
  /** The browser context (one profile; pages in it share IndexedDB, like tabs). Changes after `restartBrowser()`. */
  readonly context: BrowserContext;
  /**
   * Opens a tab on the harness page (or on `path`, e.g. `embedder.html`, relative to the
   * harness URL) and waits until `window.zeromem.ready`.
   */
  newPage(path?: string): Promise<Page>;
  /** Quits Chromium (closing every page) and starts it again on the same profile and server. */
  restartBrowser(): Promise<void>;
  /** Quits Chromium, stops Vite, and removes the temporary profile (unless it was given). */
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Profile directory to use (kept on close). Default: a fresh temporary one (removed on close). */
  userDataDir?: string;
  /** Print page console errors and uncaught page errors to stderr. Default true. */
  forwardPageErrors?: boolean;
}

/** Starts Vite and Chromium. Throws with an install hint when there is no Chromium. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const { path: executablePath, problem } = findChromium();
  if (!executablePath) throw new Error(problem);
  const forwardPageErrors = options.forwardPageErrors ?? true;
  const ownProfile = options.userDataDir === undefined;
  const userDataDir = options.userDataDir ?? (await mkdtemp(join(tmpdir(), 'zeromem-chromium-')));
  // A private dep-optimizer cache per server: parallel test files must not race on one.
  const cacheDir = await mkdtemp(join(tmpdir(), 'zeromem-vite-'));

  let server: ViteDevServer | undefined;
  let context: BrowserContext | undefined;
  try {
    server = await startVite(cacheDir);
    const url = server.resolvedUrls?.local[0];
    if (!url) throw new Error('Vite did not report a local URL');

    const launch = () =>
      chromium.launchPersistentContext(userDataDir, {
        executablePath,
        headless: true,
        args: CHROMIUM_ARGS,
      });
    context = await launch();
    const liveServer = server;
    let closed = false;

    const harness: Harness = {
      url,
      userDataDir,
      executablePath,
      get context() {
        return context!;
      },
      async newPage(path = '') {
        const page = await context!.newPage();
        if (forwardPageErrors) {
          page.on('pageerror', (err) => console.error(`[page error] ${err.message}`));
          page.on('console', (msg) => {
            if (msg.type() === 'error') console.error(`[page console] ${msg.text()}`);
          });
        }
        await page.goto(new URL(path, url).href);
        await waitReady(page);
        return page;
      },
      async restartBrowser() {
        await context!.close();
        context = await launch();
      },
      async close() {
        if (closed) return;
        closed = true;
        await context?.close().catch(() => undefined);
        await liveServer.close();
        await rm(cacheDir, { recursive: true, force: true });
        if (ownProfile) await rm(userDataDir, { recursive: true, force: true });
      },
    };
    return harness;
  } catch (err) {
    await context?.close().catch(() => undefined);
    await server?.close().catch(() => undefined);
    await rm(cacheDir, { recursive: true, force: true });
    if (ownProfile) await rm(userDataDir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Vite on a free port. Vite 7 treats `server.port: 0` as "unset" and falls back to 5173
 * (then 5174, ...), so ask the OS for a free port and bind it strictly, retrying if another
 * process takes it in between.
 */
async function startVite(cacheDir: string): Promise<ViteDevServer> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const server = await createServer({
      configFile: false,
      root: harnessRoot,
      cacheDir,
      logLevel: 'warn',
      clearScreen: false,
      server: {
        port,
        strictPort: true,
        host: '127.0.0.1',
        hmr: false,
        watch: null,
        fs: { allow: [repoRoot] },
      },
      // The embedder page's model and onnxruntime-web wasm files, served from this origin.
      plugins: [embedderAssets()],
      // dexie's ESM entry wraps its UMD build, so it must be pre-bundled. The scan from
      // index.html finds it; `holdUntilCrawlEnd` keeps the first page load from racing it.
      // transformers.js is only imported by the embedder worker, which the scan does not
      // follow: left out of pre-bundling (it and onnxruntime-web are ESM already), it is
      // never discovered late, which would re-optimize and break the loaded page.
      optimizeDeps: {
        entries: ['index.html'],
        holdUntilCrawlEnd: true,
        exclude: ['@huggingface/transformers', 'onnxruntime-web', 'onnxruntime-common'],
      },
    });
    try {
      await server.listen();
      return server;
    } catch (err) {
      await server.close().catch(() => undefined);
      if (attempt >= 5 || !/already in use/.test(String((err as Error)?.message))) throw err;
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => (port ? resolvePort(port) : reject(new Error('no free port'))));
    });
  });
}

/** Waits until the harness module has run (after a `goto` or `reload`). */
export async function waitReady(page: Page): Promise<void> {
  await page.waitForFunction(() => window.zeromem?.ready === true, undefined, { timeout: 30_000 });
}

/** Reloads a tab and waits until the harness is ready again. */
export async function reloadPage(page: Page): Promise<void> {
  await page.reload();
  await waitReady(page);
}

/** A database name no other test uses. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
