/**
 * Manifest V3 rules for the SDK: core, sync and the browser embedder, bundled with Vite for a
 * service worker, contain no dynamic `import()`, no `eval`/`Function` and no unguarded
 * `window`; and the bundle really works as an extension's service worker in Chromium, on
 * the extension's IndexedDB (remember, recall, a context counted with the default tokenizer).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, findChromium, skipBrowserTests } from './browser.ts';
import { buildServiceWorkerExtension, forbiddenConstructs } from './mv3/bundle.ts';

let workDir: string;
let extensionDir: string;
let code: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'zeromem-mv3-'));
  extensionDir = join(workDir, 'extension');
  code = await buildServiceWorkerExtension(extensionDir);
}, 180_000);

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('the service-worker bundle of core, sync and the browser embedder', () => {
  it('has no dynamic import(), eval, Function constructor or unguarded window', () => {
    expect(code.length).toBeGreaterThan(0);
    expect(forbiddenConstructs(code)).toEqual([]);
  });

  it('the scan finds each construct when it is there', () => {
    const kinds = forbiddenConstructs(
      ["const m = await import('./x.js');", "eval('1');", "new Function('return 1');", 'window.addEventListener("x", f);', 'const s = "import(window)";', "const g = typeof window !== 'undefined' ? window : self;"].join('\n'),
    ).map((f) => f.kind);
    expect(kinds).toEqual(['import()', 'eval', 'Function', 'window']);
  });
});

describe.skipIf(skipBrowserTests(import.meta.url))('the bundle as an MV3 service worker in Chromium', () => {
  let context: BrowserContext;
  let worker: Worker;

  beforeAll(async () => {
    const { path: executablePath, problem } = findChromium();
    if (!executablePath) throw new Error(problem);
    context = await chromium.launchPersistentContext(join(workDir, 'profile'), {
      executablePath,
      headless: true,
      args: [...CHROMIUM_ARGS, `--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`],
    });
    worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 120_000 }));
  }, 180_000);

  afterAll(async () => {
    await context?.close();
  });

  it('remembers, recalls and builds a context on the extension IndexedDB', async () => {
    expect(worker.url()).toMatch(/^chrome-extension:\/\/[a-p]{32}\/service-worker\.js$/);
    const result = await worker.evaluate(
      ({ facts, query }) => (self as unknown as { zeromemCheck: (name: string, facts: string[], query: string) => Promise<unknown> }).zeromemCheck('mv3-check', facts, query),
      { facts: ['I prefer window seats on long flights', 'My passport expires in March'], query: 'window seats on flights' },
    ) as { recalled: string[]; contextText: string; tokenizer: string; stored: number; startupMs: number; syncExports: string[]; embedderExports: string[]; openMs: number; firstRecallMs: number; firstContextMs: number };
    console.log(`[mv3] service worker: script evaluated ${result.startupMs.toFixed(0)} ms after start, bundle ${(code.length / 1e6).toFixed(1)} MB; open ${result.openMs.toFixed(0)} ms, first recall ${result.firstRecallMs.toFixed(0)} ms, first context (tokenizer load) ${result.firstContextMs.toFixed(0)} ms`);
    expect(result.stored).toBe(2);
    expect(result.recalled[0]).toBe('I prefer window seats on long flights');
    expect(result.contextText).toContain('window seats');
    expect(result.tokenizer).toBe('o200k_base');
    expect(result.syncExports).toContain('shareNamespace');
    expect(result.embedderExports).toContain('createWorkerEmbedder');
  }, 180_000);
});
