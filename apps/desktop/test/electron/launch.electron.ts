/**
 * Launches the real Electron app (`npx -y pnpm@10 --filter @zeromem/desktop test:electron`):
 * the page is app://, has no Node, has exactly the preload's API, and the main process
 * answers it with coded errors. It needs Electron's binary ($ELECTRON_PATH, or the one the
 * `electron` package downloaded) and fails saying how to get it otherwise. It is not part
 * of `pnpm test`: CI cannot download the binary; there the same modules are covered in Node
 * by test/main and the renderer in Chromium by test/e2e.
 */
import { _electron as electron } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { buildElectron, buildRenderer } from '../../build/build-app.ts';
import { appRoot } from '../../build/renderer-config.ts';
import { findElectron } from '../../src/main/find-electron.ts';

const found = findElectron(appRoot);

describe('the Electron app', () => {
  it('starts on app:// with an isolated, sandboxed page and the narrow preload API', async () => {
    if (!found.path) throw new Error(found.problem);
    await buildRenderer();
    await buildElectron();
    const app = await electron.launch({ executablePath: found.path!, args: [appRoot, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])] });
    try {
      const page = await app.firstWindow();
      await page.waitForSelector('.topbar', { timeout: 60_000 });
      expect(page.url()).toBe('app://zeromem/index.html');
      expect(await page.evaluate(() => [typeof (globalThis as { require?: unknown }).require, typeof (globalThis as { process?: unknown }).process])).toEqual(['undefined', 'undefined']);
      expect(await page.evaluate(() => Object.keys(window.zeromemDesktop ?? {}).sort())).toEqual(['cancelChat', 'chat', 'getLlmSettings', 'memory', 'platform', 'saveLlmSettings']);
      const code = await page.evaluate(() => window.zeromemDesktop!.saveLlmSettings({ baseUrl: 'ftp://nowhere', model: 'm' }).then(() => 'saved', (err: { code?: string }) => err.code));
      expect(code).toBe('INVALID_INPUT');
      // contextIsolation: what the preload set up is not visible from the page, only the bridged API.
      expect(await page.evaluate(() => typeof (globalThis as { ipcRenderer?: unknown }).ipcRenderer)).toBe('undefined');
    } finally {
      await app.close();
    }
  }, 180_000);
});
