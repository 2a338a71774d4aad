/**
 * The example extension's host permissions, in real Chromium: none at install; the LLM
 * endpoint's host is asked for when the user saves it in the options page, and reading
 * pages when the user allows it there. Chrome's own permission dialog is answered with
 * keys, so this Chromium runs headed on a virtual X display (Xvfb). The LLM is a mock
 * OpenAI-compatible server (streamed replies, no CORS headers: only the host permission lets
 * the extension reach it); the page is a real page served over HTTP.
 */
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExtension, ExtensionBrowser, screenshots, send, skipDisplayTests, startDisplay, type VirtualDisplay } from './extension-harness.ts';

const FACT = 'I prefer window seats on long flights';
const STORED = 'The user prefers window seats on long flights';
const PIECES = ['You prefer ', 'a window seat, ', 'so pick 23A on LH 454.'];
const PAGE_TEXT = 'Flight LH 454 to San Francisco departs at 10:40 from gate B12.';

interface ChatRequest {
  model: string;
  stream: boolean;
  messages: Array<{ role: string; content: string }>;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

describe.skipIf(skipDisplayTests('test/e2e/extension-permissions.test.ts'))('the extension asks for host permissions when the user acts', () => {
  let display: VirtualDisplay;
  let profile: string;
  let extensionDir: string;
  let browser: ExtensionBrowser;
  let llmServer: Server;
  let pageServer: Server;
  let llmBase: string;
  let pageUrl: string;
  let options: Page;
  let panel: Page;
  const requests: ChatRequest[] = [];

  /** Clicks a button whose handler asks for a permission, and answers Chrome's dialog. */
  async function answerDialog(button: string, result: string, allow: boolean): Promise<string> {
    await options.click(button);
    // Keys go to the dialog once Chrome shows it; if one lands on the page it finds no focused control.
    await options.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    for (let attempt = 0; attempt < 5 && (await options.textContent(result)) === '…'; attempt++) {
      await options.waitForTimeout(1000);
      await display.press(...(allow ? ['Tab', 'Return'] : ['Escape']));
      await expect.poll(() => options.textContent(result), { timeout: 5000 }).not.toBe('…').catch(() => undefined);
    }
    return (await options.textContent(result)) ?? '';
  }

  beforeAll(async () => {
    llmServer = createServer((req, res) => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', async () => {
        requests.push(JSON.parse(body) as ChatRequest);
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        for (const piece of PIECES) {
          res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: piece } }] })}\n\n`);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        res.end('data: [DONE]\n\n');
      });
    });
    pageServer = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>Trip planner</title><h1>Your trip</h1><p>${PAGE_TEXT}</p>`);
    });
    llmBase = `http://127.0.0.1:${await listen(llmServer)}/v1`;
    // Another host than the LLM's: reading pages needs its own permission.
    pageUrl = `http://localhost:${await listen(pageServer)}/trip.html`;
    extensionDir = await buildExtension();
    display = await startDisplay();
    profile = await mkdtemp(join(tmpdir(), 'zeromem-extension-permissions-'));
    browser = await ExtensionBrowser.launch(profile, { extensionDir, display: display.display });
    options = await browser.open('options.html');
    panel = await browser.open('sidepanel.html');
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await display?.close();
    llmServer?.close();
    pageServer?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
    if (extensionDir) await rm(extensionDir, { recursive: true, force: true });
  });

  it('holds no host permission at install', async () => {
    expect(await options.evaluate(() => chrome.permissions.getAll())).toMatchObject({ origins: [] });
  });

  it('asks for the endpoint when it is saved; denied, replies stay offline and nothing is sent', async () => {
    expect(await send(panel, `remember that ${FACT}`)).toBe(`Remembered: "${STORED}"`);
    await options.fill('#llm-url', llmBase);
    await options.fill('#llm-model', 'mock-model');
    expect(await answerDialog('#llm button[type=submit]', '#llm-result', false)).toBe('Saved, but not allowed to reach http://127.0.0.1/*: replies show the prompt.');
    const answer = await send(panel, 'which seat should I pick?');
    expect(answer).toContain(`The extension may not reach ${llmBase} (allow it in the options page), so here is the prompt it would be sent`);
    expect(answer).toContain(STORED);
    expect(requests).toEqual([]);
  }, 120_000);

  it('allowed, the reply streams from the endpoint with the memories in the prompt', async () => {
    expect(await answerDialog('#llm button[type=submit]', '#llm-result', true)).toBe('Saved; the extension may reach http://127.0.0.1/*.');
    // Every text the reply shows while it streams.
    await panel.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      new MutationObserver(() => {
        const last = document.querySelector('#log li.agent:last-of-type');
        if (last?.textContent && seen.at(-1) !== last.textContent) seen.push(last.textContent);
      }).observe(document.querySelector('#log')!, { childList: true, subtree: true, characterData: true });
    });
    const answer = await send(panel, 'which seat should I pick?');
    expect(answer).toBe(PIECES.join(''));
    const seen = await panel.evaluate(() => (window as unknown as { seen: string[] }).seen);
    expect(seen).toContain(PIECES[0]); // shown before the rest had arrived
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ model: 'mock-model', stream: true });
    expect(requests[0]!.messages[0]!.content).toContain(STORED);
    expect(requests[0]!.messages[1]).toEqual({ role: 'user', content: 'which seat should I pick?' });
    expect(await panel.locator('#log li.agent').last().locator('details').textContent()).toContain(STORED); // the prompt sent, folded
  }, 120_000);

  it('reads the page the user is on once allowed, and the offline prompt shows its text', async () => {
    const trip = await browser.context.newPage();
    await trip.goto(pageUrl);
    await send(panel, 'what is on this page?');
    expect(requests.at(-1)!.messages[0]!.content).toContain('The extension cannot see the page the user is on');

    expect(await answerDialog('#read-pages', '#pages-result', true)).toBe('Allowed: the agent reads the page you are on.');
    await send(panel, 'when does my flight leave?');
    const system = requests.at(-1)!.messages[0]!.content;
    expect(system).toContain(`The user is on "Trip planner" (${pageUrl}).`);
    expect(system).toContain(PAGE_TEXT);
    expect(system).toContain(STORED);

    await options.click('#llm-clear');
    await expect.poll(() => options.textContent('#llm-result')).toBe('Removed: replies show the prompt.');
    const offline = await send(panel, 'when does my flight leave?');
    expect(offline).toContain('No LLM is set in the options page, so here is the prompt it would be sent');
    expect(offline).toContain(PAGE_TEXT);
    await panel.bringToFront();
    await panel.screenshot({ path: join(screenshots, 'sidepanel-page.png'), fullPage: true });
  }, 120_000);
});
