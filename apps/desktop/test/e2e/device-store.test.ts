/**
 * The Electron renderer on the device store, in Chromium: the built app with the real
 * preload API (desktop-api.ts, bundled for the page) whose IPC reaches the main process's
 * real handlers over a real store on disk, here in Node (Electron's binary cannot be
 * downloaded in CI). A real `zeromem-mcp` process writes first; its memory shows up in the
 * app's inspector; what the app remembers, `zeromem-mcp` lists when started again (a
 * restart finds it on disk; test/main/device-store.test.ts has both open at once). The
 * files Claude's memory tool keeps in the store show in the inspector's file tree.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryTool } from '@zeromem/tools';
import { repoRoot, skipBrowserTests } from '../../../../test/e2e/browser.ts';
import { call, stdioClient } from '../../../../packages/mcp/test/bin-client.ts';
import { appRoot } from '../../build/renderer-config.ts';
import { DeviceStore } from '../../src/main/device-store.ts';
import { createIpcHandlers } from '../../src/main/ipc-handlers.ts';
import { LlmSettingsStore } from '../../src/main/llm-settings-store.ts';
import { testKeychain } from '../main/test-keychain.ts';
import { startAppHarness, type AppHarness } from './app-harness.ts';

const SHOTS = join(repoRoot, '.tmp', 'screenshots');

/** The preload's API module as a script for the page (what Electron's preload would expose). */
async function preloadScript(): Promise<string> {
  const output = await build({
    configFile: false,
    root: appRoot,
    logLevel: 'warn',
    build: { write: false, minify: false, lib: { entry: join(appRoot, 'src/preload/desktop-api.ts'), formats: ['iife'], name: 'zeromemPreload' } },
  });
  const chunk = (Array.isArray(output) ? output[0]! : (output as { output: Array<{ code?: string }> })).output[0]! as { code: string };
  // The page's ipcRenderer: invoke goes to the Node side through an exposed binding; no stream events here.
  return `${chunk.code}\nwindow.zeromemDesktop = zeromemPreload.createDesktopApi({ invoke: (channel, ...args) => window.__zeromemIpc(channel, args), on() {}, removeListener() {} });`;
}

describe.skipIf(skipBrowserTests(import.meta.url))('the desktop app on the device store, in Chromium', () => {
  let app: AppHarness;
  let home: string;
  let script: string;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    home = mkdtempSync(join(tmpdir(), 'zeromem-desktop-home-'));
    [app, script] = await Promise.all([startAppHarness(), preloadScript()]);
  }, 240_000);

  afterAll(async () => {
    await app?.close();
    rmSync(home, { recursive: true, force: true });
  });

  /** The app's window: the page with the preload, its IPC answered by the main process's handlers over `store`. */
  async function desktopWindow(store: DeviceStore): Promise<Page> {
    const handlers = createIpcHandlers({ store: new LlmSettingsStore(join(home, 'user-data'), testKeychain()), deviceStore: store });
    const context = await app.browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.exposeFunction('__zeromemIpc', (channel: string, args: unknown[]) => {
      const handler = handlers[channel];
      if (!handler) throw new Error(`no handler for ${channel}`);
      return handler({ frameUrl: 'app://zeromem/index.html', send: () => undefined }, args);
    });
    await context.addInitScript(script);
    const page = await context.newPage();
    page.on('pageerror', (err) => app.errors.push(`pageerror: ${err.message}`));
    await page.goto(app.url);
    await page.waitForSelector('.topbar', { timeout: 30_000 });
    return page;
  }

  it('shows what zeromem-mcp remembered in the inspector, and zeromem-mcp lists what the app remembered', async () => {
    const env = { ZEROMEM_HOME: home };
    const mcp = await stdioClient(['--user', 'alice'], env);
    await call(mcp.client, 'add_memory', { content: 'Alice is allergic to peanuts.' });
    await mcp.close();
    await mcp.exited();

    const store = await DeviceStore.open(home);
    const page = await desktopWindow(store);
    await expect(page.locator('.brand .muted').textContent()).resolves.toBe('the device store, shared with your other tools');
    await expect(page.locator('.brand .muted').getAttribute('title')).resolves.toBe(join(home, 'zeromem.sqlite'));
    await page.evaluate(() => (location.hash = '#/inspector'));
    await page.locator('#insp-scope option', { hasText: 'alice' }).waitFor({ state: 'attached' });
    await page.selectOption('#insp-scope', { label: 'alice' });
    await page.locator('.record', { hasText: 'Alice is allergic to peanuts.' }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'device-store-inspector-1280.png'), fullPage: true });

    // The after-sales agent, offline, remembers the fact the user wrote as a REMEMBER line.
    await page.evaluate(() => (location.hash = '#/after-sales'));
    await page.locator('.composer textarea').fill('REMEMBER: The user picks up repairs on Saturdays.');
    await page.keyboard.press('Enter');
    await page.locator('.tools li', { hasText: 'Remembered in the user’s memory' }).or(page.locator('.tools li', { hasText: "Remembered in the user's memory" })).waitFor({ timeout: 20_000 });
    await page.context().close();
    await store.close();

    const again = await stdioClient(['--user', 'user-1042'], env);
    try {
      const listed = await call<{ memories: Array<{ content: string }> }>(again.client, 'list_memories', { limit: 10 });
      expect(listed.memories.map((m) => m.content)).toContain('The user picks up repairs on Saturdays.');
    } finally {
      await again.close();
      await again.exited();
    }
    expect(app.errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
  }, 120_000);

  it("shows the files Claude's memory tool keeps in the device store as a tree, read through the preload's verbs", async () => {
    const store = await DeviceStore.open(home);
    try {
      // Claude (through any door: the AI SDK's or LangChain's claudeMemory, a hand-written loop) keeps a file and edits it.
      const claude = createMemoryTool(store.memory, { namespace: { userId: 'alice' } });
      await expect(claude.execute({ command: 'create', path: '/memories/health/allergies.md', file_text: 'Peanuts\n' })).resolves.toBe('File created successfully at: /memories/health/allergies.md');
      await expect(claude.execute({ command: 'insert', path: '/memories/health/allergies.md', insert_line: 1, insert_text: 'Shellfish\n' })).resolves.not.toMatch(/^Error/);
      const page = await desktopWindow(store);
      await page.evaluate(() => (location.hash = '#/inspector'));
      await page.locator('#insp-scope option', { hasText: 'alice' }).waitFor({ state: 'attached' });
      await page.selectOption('#insp-scope', { label: 'alice' });
      const file = page.locator('[data-testid=memory-files] li.tree-dir[data-path="/memories/health"] li.tree-file[data-path="/memories/health/allergies.md"]');
      await file.waitFor({ timeout: 20_000 });
      await file.locator('summary').click();
      await expect(file.locator('li.file-version pre').allTextContents()).resolves.toEqual(['Peanuts\n', 'Peanuts\nShellfish\n']);
      await page.context().close();
    } finally {
      await store.close();
    }
    expect(app.errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
  }, 120_000);
});
