/**
 * The web twin's first minute (issue 33 item 5), in real Chromium: the views show and
 * recall answers (by words) while the model is still loading; the header says so and then
 * says "Semantic search ready"; a second visit takes the model from Cache Storage and does
 * not fetch it again; a turn's prompt is folded. The model's files are held back by the
 * test (not timed): the views must not wait for them.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, skipBrowserTests } from '../../../../test/e2e/browser.ts';
import { startAppHarness, type AppHarness } from './app-harness.ts';

const MODEL_FILES = /\/zeromem-assets\/models\//;
const SHOTS = join(repoRoot, '.tmp', 'screenshots');

describe.skipIf(skipBrowserTests(import.meta.url))('the web twin’s first minute in Chromium', () => {
  let app: AppHarness;

  beforeAll(async () => {
    app = await startAppHarness();
  }, 240_000);

  afterAll(async () => {
    await app?.close();
  });

  it('shows the views and answers recall before the model is ready, then says semantic search is ready; a second visit does not fetch the model', async () => {
    const context = await app.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const held: Route[] = [];
    let release = false;
    await context.route(MODEL_FILES, (route) => (release ? route.continue() : void held.push(route)));
    const modelRequests: string[] = [];
    context.on('request', (request) => {
      if (MODEL_FILES.test(request.url())) modelRequests.push(request.url());
    });
    const page = await context.newPage();
    await page.goto(app.url);

    // The model is held back: the app is there anyway.
    await page.waitForSelector('.topbar', { timeout: 30_000 });
    await expect.poll(() => held.length, { timeout: 30_000 }).toBeGreaterThan(0);
    const badge = page.locator('.badge[data-semantic]');
    await expect(badge.getAttribute('data-semantic')).resolves.toBe('loading');
    await expect(page.locator('nav.tabs button').count()).resolves.toBe(6);
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, 'first-minute-model-loading-1280.png') });

    // Recall works meanwhile, by words.
    await page.evaluate(() => (location.hash = '#/inspector'));
    await page.evaluate(() => (location.hash = '#/after-sales'));
    await page.locator('.composer textarea').fill('REMEMBER: I prefer window seats');
    await page.keyboard.press('Enter');
    await page.locator('.turns > li[data-turn]').first().waitFor({ timeout: 20_000 });
    // The turn's prompt is folded.
    await expect(page.locator('.turns > li[data-turn] details.prompt').first().getAttribute('open')).resolves.toBeNull();
    await page.evaluate(() => (location.hash = '#/inspector'));
    await page.fill('#insp-search', 'window seats');
    await page.keyboard.press('Enter');
    await page.locator('text=hit for “window seats”').or(page.locator('text=hits for “window seats”')).first().waitFor({ timeout: 20_000 });
    await expect(badge.getAttribute('data-semantic')).resolves.toBe('loading');

    // The model arrives: semantic search is ready.
    release = true;
    for (const route of held.splice(0)) await route.continue();
    await expect.poll(() => badge.getAttribute('data-semantic'), { timeout: 120_000 }).toBe('ready');
    await expect(badge.textContent()).resolves.toBe('Semantic search ready');
    await page.screenshot({ path: join(SHOTS, 'first-minute-semantic-ready-1280.png') });

    // A second visit: the model comes from Cache Storage, not the network.
    const fetchedFirst = modelRequests.length;
    expect(fetchedFirst).toBeGreaterThan(0);
    await page.reload();
    await expect.poll(() => page.locator('.badge[data-semantic]').getAttribute('data-semantic'), { timeout: 120_000 }).toBe('ready');
    expect(modelRequests.slice(fetchedFirst)).toEqual([]);
    await context.close();
    expect(app.errors).toEqual([]);
  }, 300_000);
});
