/**
 * The example extension's optional sync, in real Chromium with a real relay process
 * (`zeromem-relay`, the built bin): the user pastes the relay URL and a token printed by
 * `zeromem-relay token` in the options page; the side panel then shares the namespace, and a
 * replica in Node (what the desktop app runs) sees what the extension remembers, and the
 * other way round, end-to-end encrypted with a key pasted on both sides.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namespaceKey, openMemory, type Memory } from '@zeromem/core';
import { generateNamespaceKey, shareNamespace, type SharedNamespace } from '@zeromem/sync';
import { repoRoot, skipBrowserTests } from './browser.ts';
import { buildExtension, ExtensionBrowser, send } from './extension-harness.ts';

const RELAY_BIN = join(repoRoot, 'packages/relay/dist/bin.js');
const SECRET = 'extension-sync-secret-0123456789-abcdefghijklmnop';
const NAMESPACE = { userId: 'me' };
const FROM_BROWSER = 'I prefer window seats on long flights';
const STORED = 'The user prefers window seats on long flights';
const FROM_DESKTOP = 'My passport expires in March';

describe.skipIf(skipBrowserTests(import.meta.url))('the extension syncs through a relay', () => {
  let work: string;
  let relay: ChildProcess;
  let relayUrl: string;
  let token: string;
  let browser: ExtensionBrowser;
  let extensionDir: string;
  let desktop: Memory;
  let share: SharedNamespace;
  let encryptionKey: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'zeromem-extension-sync-'));
    const env = { ...process.env, NODE_OPTIONS: '', ZEROMEM_RELAY_SECRET: SECRET };
    relay = spawn(process.execPath, [RELAY_BIN, '--port', '0', '--data-dir', join(work, 'relay'), '--quiet'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    relayUrl = await new Promise<string>((resolve, reject) => {
      let out = '';
      relay.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        const url = /^(ws:\/\/\S+)\n/.exec(out);
        if (url) resolve(url[1]!);
      });
      relay.once('exit', (code) => reject(new Error(`relay exited (${code})`)));
    });
    const { stdout } = await promisify(execFile)(process.execPath, [RELAY_BIN, 'token', '--room', namespaceKey(NAMESPACE), '--ttl', '1h', '--subject', 'my-devices'], { env });
    token = stdout.trim();

    // On disk, as the desktop app keeps it (ZEROMEM_HOME: the store's directory in Node).
    const home = process.env.ZEROMEM_HOME;
    process.env.ZEROMEM_HOME = join(work, 'desktop');
    try {
      desktop = await openMemory({ name: 'desktop' });
    } finally {
      if (home === undefined) delete process.env.ZEROMEM_HOME;
      else process.env.ZEROMEM_HOME = home;
    }
    encryptionKey = await generateNamespaceKey();
    share = await shareNamespace(desktop, NAMESPACE, { url: relayUrl, token, encryptionKey, WebSocketPolyfill: WebSocket, deviceName: 'desktop' });
    await share.synced;

    extensionDir = await buildExtension();
    browser = await ExtensionBrowser.launch(join(work, 'profile'), { extensionDir });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await share?.close();
    await desktop?.close();
    if (relay && relay.exitCode === null) {
      const exited = new Promise((resolve) => relay.once('exit', resolve));
      relay.kill('SIGTERM');
      await exited;
    }
    if (work) await rm(work, { recursive: true, force: true });
    if (extensionDir) await rm(extensionDir, { recursive: true, force: true });
  });

  it('shares the namespace once a relay URL and token are pasted in the options page', async () => {
    const options = await browser.open('options.html');
    await options.fill('#sync-url', 'https://not-a-relay.example');
    await options.fill('#sync-token', token);
    await options.click('#sync button[type=submit]');
    await expect.poll(() => options.textContent('#sync-result')).toMatch(/^Not saved: url: /);
    await options.fill('#sync-url', relayUrl);
    await options.fill('#sync-key', encryptionKey);
    await options.click('#sync button[type=submit]');
    await expect.poll(() => options.textContent('#sync-result')).toBe('Saved: the side panel syncs from the next time it opens.');

    const panel = await browser.open('sidepanel.html'); // ready once the first exchange with the relay is done
    expect(await panel.textContent('#status')).toContain('sync: on');
    expect(await send(panel, `remember that ${FROM_BROWSER}`)).toBe(`Remembered: "${STORED}"`);
    await expect.poll(async () => (await desktop.list(NAMESPACE)).items.map((r) => r.content), { timeout: 60_000 }).toContain(STORED);

    await desktop.remember({ namespace: NAMESPACE, content: FROM_DESKTOP });
    await expect.poll(() => send(panel, 'when does my passport expire?'), { timeout: 60_000, interval: 1000 }).toContain(FROM_DESKTOP);
  }, 300_000);
});
