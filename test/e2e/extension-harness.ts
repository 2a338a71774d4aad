/**
 * The example extension (apps/extension) in real Chromium for the extension tests: builds
 * it once per process, launches Chromium with it loaded unpacked on a persistent profile
 * (relaunchable on the same profile), opens its pages, chats in the side panel, reads the
 * extension's IndexedDB, and stops its service worker through the DevTools protocol.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { browserRequired, CHROMIUM_ARGS, findChromium, repoRoot, skipBrowserTests } from './browser.ts';

export const appDir = join(repoRoot, 'apps/extension');
/**
 * Where the tests' screenshots go: a temporary folder, so a test run leaves the checkout
 * as it was; `ZEROMEM_UPDATE_SCREENSHOTS=1` writes them over the README's images in
 * apps/extension/docs instead.
 */
export const screenshots = process.env.ZEROMEM_UPDATE_SCREENSHOTS === '1' ? join(appDir, 'docs') : mkdtempSync(join(tmpdir(), 'zeromem-extension-screenshots-'));
const execFileAsync = promisify(execFile);

/**
 * `vite build` of the extension into a fresh temporary folder (test files run in parallel:
 * each loads its own copy), in a plain Node child process as a user runs it: the config
 * imports @zeromem/embed-transformers, which must resolve to its built dist/ (the tests' own
 * development condition would give TypeScript sources). Resolves with the folder.
 */
export async function buildExtension(): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), 'zeromem-extension-build-'));
  await execFileAsync(process.execPath, [join(appDir, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn', '--outDir', outDir], {
    cwd: appDir,
    env: { ...process.env, NODE_OPTIONS: '' },
    maxBuffer: 16 * 1024 * 1024,
  });
  return outDir;
}

export interface LaunchOptions {
  /** The built extension (from {@link buildExtension}). */
  extensionDir: string;
  /** Run headed on this X display (for Chrome's permission dialog), instead of headless. */
  display?: string;
}

/** A Chromium with the extension loaded. */
export class ExtensionBrowser {
  private constructor(
    readonly context: BrowserContext,
    readonly extensionId: string,
  ) {}

  static async launch(profile: string, options: LaunchOptions): Promise<ExtensionBrowser> {
    const { extensionDir } = options;
    const { path: executablePath, problem } = findChromium();
    if (!executablePath) throw new Error(problem);
    const headed = options.display !== undefined;
    const context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: !headed,
      ...(headed ? { env: { ...process.env, DISPLAY: options.display } } : {}),
      args: [...CHROMIUM_ARGS.filter((arg) => !headed || arg !== '--headless'), `--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`],
    });
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 120_000 }));
    return new ExtensionBrowser(context, new URL(worker.url()).host);
  }

  /** Opens an extension page (`sidepanel.html`, `options.html`) in a tab. */
  async open(path: string): Promise<Page> {
    const page = await this.context.newPage();
    page.on('pageerror', (err) => console.error(`[extension page] ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') console.error(`[extension console] ${msg.text()}`);
    });
    await page.goto(`chrome-extension://${this.extensionId}/${path}`);
    if (path.startsWith('sidepanel')) await page.locator('body[data-ready=true]').waitFor({ timeout: 120_000 });
    return page;
  }

  /** The extension's service worker as DevTools sees it: its version id and running status. */
  private async serviceWorker(cdp: CDPSession): Promise<{ versionId: string; runningStatus: string } | undefined> {
    const versions = new Map<string, { versionId: string; runningStatus: string; scriptURL: string }>();
    const listener = (event: { versions: Array<{ versionId: string; runningStatus: string; scriptURL: string }> }) => {
      for (const version of event.versions) versions.set(version.versionId, version);
    };
    cdp.on('ServiceWorker.workerVersionUpdated', listener);
    await cdp.send('ServiceWorker.enable');
    await new Promise((resolve) => setTimeout(resolve, 300)); // the current versions are reported on enable
    cdp.off('ServiceWorker.workerVersionUpdated', listener);
    await cdp.send('ServiceWorker.disable');
    const mine = [...versions.values()].filter((v) => v.scriptURL.startsWith(`chrome-extension://${this.extensionId}/`));
    return mine.at(-1);
  }

  /**
   * Stops the extension's service worker (`ServiceWorker.stopWorker`, what "Stop" in
   * chrome://serviceworker-internals does) and resolves once DevTools reports it stopped.
   */
  async stopServiceWorker(page: Page): Promise<void> {
    const cdp = await this.context.newCDPSession(page);
    try {
      const version = await this.serviceWorker(cdp);
      if (!version) throw new Error('the extension has no service worker version');
      const stopped = new Promise<void>((resolve) => {
        cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }: { versions: Array<{ versionId: string; runningStatus: string }> }) => {
          if (versions.some((v) => v.versionId === version.versionId && v.runningStatus === 'stopped')) resolve();
        });
      });
      await cdp.send('ServiceWorker.enable');
      await cdp.send('ServiceWorker.stopWorker', { versionId: version.versionId });
      await stopped;
    } finally {
      await cdp.detach().catch(() => undefined);
    }
  }

  /** True when a service_worker target of the extension is running. */
  async serviceWorkerRunning(page: Page): Promise<boolean> {
    const cdp = await this.context.newCDPSession(page);
    try {
      const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: Array<{ type: string; url: string }> };
      return targetInfos.some((t) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${this.extensionId}/`));
    } finally {
      await cdp.detach().catch(() => undefined);
    }
  }

  close(): Promise<void> {
    return this.context.close();
  }
}

/** Sends a message in the side panel and resolves with the finished reply's text (without the folded prompt). */
export async function send(panel: Page, message: string): Promise<string> {
  const replies = panel.locator('#log li.agent');
  const before = await replies.count();
  await panel.fill('#message', message);
  await panel.click('#chat button[type=submit]');
  const reply = replies.nth(before);
  await reply.and(panel.locator('[data-done=true]')).waitFor({ timeout: 120_000 });
  return reply.evaluate((item) => item.firstChild?.textContent ?? '');
}

/** Every value in every object store of the page origin's databases, as JSON text. */
export function indexedDbText(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const texts: string[] = [];
    for (const { name } of await indexedDB.databases()) {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const request = indexedDB.open(name!);
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      for (const store of Array.from(db.objectStoreNames)) {
        const values = await new Promise<unknown[]>((resolve, reject) => {
          const request = db.transaction(store).objectStore(store).getAll();
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => reject(request.error);
        });
        texts.push(JSON.stringify(values));
      }
      db.close();
    }
    return texts.join('\n');
  });
}

/** A virtual X display for headed Chromium, where Chrome's permission dialog is answered with keys. */
export interface VirtualDisplay {
  /** `:N`, for DISPLAY. */
  readonly display: string;
  /** Presses keys in the focused window (`xdotool key …`). */
  press(...keys: string[]): Promise<void>;
  close(): Promise<void>;
}

const DISPLAY_TOOLS = ['Xvfb', 'xdotool'];
const DISPLAY_HINT = 'Install them with `apt-get install -y xvfb xdotool`.';

/** Why the virtual display cannot start (a missing tool), or undefined. */
export function displayProblem(): string | undefined {
  const missing = DISPLAY_TOOLS.filter((tool) => !process.env.PATH?.split(':').some((dir) => existsSync(join(dir, tool))));
  return missing.length ? `${missing.join(' and ')} not found. ${DISPLAY_HINT}` : undefined;
}

/** For `describe.skipIf`: like skipBrowserTests, also for Xvfb and xdotool. */
export function skipDisplayTests(suite: string): boolean {
  if (skipBrowserTests(suite)) return true;
  const problem = displayProblem();
  if (!problem || browserRequired()) return false;
  console.warn(`[zeromem] skipping ${suite}: ${problem} (set ZEROMEM_REQUIRE_BROWSER=1 to make this a failure)`);
  return true;
}

/** Starts Xvfb on a free display number (it reports the number it took). */
export async function startDisplay(): Promise<VirtualDisplay> {
  const problem = displayProblem();
  if (problem) throw new Error(problem);
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let stderr = '';
  xvfb.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const number = await new Promise<string>((resolve, reject) => {
    let out = '';
    (xvfb.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    xvfb.once('exit', (code) => reject(new Error(`Xvfb exited (${code}): ${stderr.slice(-500)}`)));
  });
  const display = `:${number}`;
  return {
    display,
    async press(...keys) {
      await execFileAsync('xdotool', ['key', ...keys], { env: { ...process.env, DISPLAY: display } });
    },
    async close() {
      if (xvfb.exitCode !== null) return;
      const exited = new Promise((resolve) => xvfb.once('exit', resolve));
      xvfb.kill('SIGTERM');
      await exited;
    },
  };
}
