/**
 * Two pages in real Chromium, each its own replica (its own IndexedDB database and stored
 * document), sharing a namespace through a real relay with the browser's native WebSocket:
 * writes, updates and forgets reach the other page's store and recall; awareness lists the
 * other page; end-to-end encryption works with WebCrypto in the page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namespaceKey, type Namespace } from '@zeromem/core';
import { issueToken, startRelay, type Relay } from '@zeromem/relay';
import { skipBrowserTests, startHarness, uniqueName, type Harness } from './browser.ts';

const SECRET = 'browser-sync-secret-0123456789-abcdefghijklmnopqrstuvwxyz';

interface Share {
  url: string;
  token: string;
  name: string;
  ns: Namespace;
  agentName: string;
  encryptionKey?: string;
}

/** Opens a memory and shares `ns` in the page; both are kept in `scratch` under `name`. */
function openReplica(page: Page, share: Share): Promise<void> {
  return page.evaluate(async ({ url, token, name, ns, agentName, encryptionKey }) => {
    const memory = await window.zeromem.openMemory({ name });
    const handle = await window.zeromem.shareNamespace(memory, ns, { url, token, agentName, ...(encryptionKey ? { encryptionKey } : {}) });
    await handle.synced;
    window.zeromem.scratch[name] = { memory, handle };
  }, share);
}

type Scratch = { memory: import('@zeromem/core').Memory; handle: import('@zeromem/sync').SharedNamespace };

describe.skipIf(skipBrowserTests(import.meta.url))('sync between two Chromium pages through the relay', () => {
  let harness: Harness;
  let relay: Relay;
  let dataDir: string;
  let pages: Page[];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'zeromem-browser-sync-'));
    relay = await startRelay({ secret: SECRET, dataDir, port: 0, logLevel: 'silent' });
    harness = await startHarness();
    pages = [await harness.newPage(), await harness.newPage()];
  });

  afterAll(async () => {
    for (const page of pages ?? []) {
      await page.evaluate(async () => {
        for (const value of Object.values(window.zeromem.scratch)) {
          const { memory, handle } = value as Scratch;
          await handle.close();
          await memory.close();
        }
      }).catch(() => undefined);
    }
    await harness?.close();
    await relay?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  for (const encrypted of [false, true]) {
    it(`writes, updates and forgets reach the other page${encrypted ? ' (end-to-end encrypted)' : ''}`, async () => {
      const ns = { userId: 'browser-user', scope: encrypted ? 'vault' : 'shared' };
      const token = await issueToken({ secret: SECRET, subject: 'pages', rooms: [namespaceKey(ns)], ttlSeconds: 600 });
      const names = [uniqueName('page-a'), uniqueName('page-b')];
      const key = encrypted ? await pages[0]!.evaluate(() => window.zeromem.generateNamespaceKey()) : undefined;
      await openReplica(pages[0]!, { url: relay.url, token, name: names[0]!, ns, agentName: 'page-a', ...(key ? { encryptionKey: key } : {}) });
      await openReplica(pages[1]!, { url: relay.url, token, name: names[1]!, ns, agentName: 'page-b', ...(key ? { encryptionKey: key } : {}) });

      const id = await pages[0]!.evaluate(async ({ name, ns }) => {
        const { memory } = window.zeromem.scratch[name] as Scratch;
        return (await memory.remember({ namespace: ns, content: 'The user lives in Lyon and cycles to work', tags: ['home'] })).id;
      }, { name: names[0]!, ns });

      const seen = await pages[1]!.evaluate(async ({ name, ns, id }) => {
        const { memory, handle } = window.zeromem.scratch[name] as Scratch;
        const wait = async (check: () => Promise<boolean>) => {
          for (let i = 0; i < 500 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 20));
        };
        await wait(async () => (await memory.get(ns, id)) !== undefined);
        await wait(async () => handle.peers().length > 0);
        const record = await memory.get(ns, id);
        const hits = (await memory.recall(ns, 'where does the user live')).hits.map((h) => h.record.id);
        const updated = await memory.update(ns, id, { content: 'The user moved to Grenoble' });
        return { content: record?.content, tags: record?.tags, hits, peers: handle.peers().map((p) => p.agentName), version: updated.version };
      }, { name: names[1]!, ns, id });
      expect(seen).toEqual({ content: 'The user lives in Lyon and cycles to work', tags: ['home'], hits: [id], peers: ['page-a'], version: 2 });

      const afterUpdate = await pages[0]!.evaluate(async ({ name, ns, id }) => {
        const { memory } = window.zeromem.scratch[name] as Scratch;
        for (let i = 0; i < 500 && (await memory.get(ns, id))?.version !== 2; i++) await new Promise((resolve) => setTimeout(resolve, 20));
        const content = (await memory.get(ns, id))?.content;
        await memory.forget(ns, id);
        return content;
      }, { name: names[0]!, ns, id });
      expect(afterUpdate).toBe('The user moved to Grenoble');

      const afterForget = await pages[1]!.evaluate(async ({ name, ns, id }) => {
        const { memory } = window.zeromem.scratch[name] as Scratch;
        for (let i = 0; i < 500 && (await memory.get(ns, id)) !== undefined; i++) await new Promise((resolve) => setTimeout(resolve, 20));
        return { record: (await memory.get(ns, id)) ?? null, hits: (await memory.recall(ns, 'Grenoble')).hits.length };
      }, { name: names[1]!, ns, id });
      expect(afterForget).toEqual({ record: null, hits: 0 });
    }, 60_000);
  }
});
