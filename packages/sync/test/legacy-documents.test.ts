import { copyFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { afterEach, expect, it } from 'vitest';
import { namespaceKey, openMemory, type ZeromemError } from '@zeromem/core';
import { replicaOf } from '@zeromem/core/internal';
import { shareNamespace } from '../src/index.ts';
import { cleanup, device, directoryContains, tempDir, testRelay, token, until } from './helpers.ts';

// Store `laptop` as the releases before format 1002 left it (fixtures/make-legacy-documents.ts):
// the memory's file, and its shared document in a file of its own, `laptop-sync.sqlite`.
const FIXTURE = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const IDS = ['01KDVDNAZ8SWQ2E97NV767JCV6', '01KDVDNCXR96FAQD7FS7A98PQ5', '01KDVDNFVGSMBESTAQ4F6WWQKC'];
const NS = { userId: 'alice', scope: 'notes' };
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3');

afterEach(cleanup);

it('an earlier release\'s <name>-sync.sqlite moves into the memory\'s file once: one file, the document and cursor kept, the share goes on, and a forget leaves no byte anywhere', async () => {
  const dir = tempDir();
  copyFileSync(FIXTURE('laptop-1001.sqlite'), join(dir, 'laptop.sqlite'));
  copyFileSync(FIXTURE('laptop-1001-sync.sqlite'), join(dir, 'laptop-sync.sqlite'));
  expect(directoryContains(dir, 'fixture-doomed-2')).toBe(true);

  const memory = await openMemory({ name: 'laptop', directory: dir, historyDepth: 0 });
  expect(readdirSync(dir).filter((file) => file.startsWith('laptop-sync'))).toEqual([]); // moved in and removed
  const log = await replicaOf(memory).docLog.load(namespaceKey(NS));
  expect(log.cursor).toBe(3);
  expect(log.updates.length).toBe(3);
  expect(Buffer.concat(log.updates).includes(Buffer.from('fixture-doomed-2'))).toBe(true);

  // Shared again through a new relay: the stored document goes up from this device, the cursor says nothing is left to send.
  const relay = await testRelay();
  const rw = await token([namespaceKey(NS)]);
  const errors: ZeromemError[] = [];
  const share = await shareNamespace(memory, NS, { url: relay.url, token: rw, WebSocketPolyfill: WebSocket, pollMs: 20, maxBackoffMs: 100, onError: (err) => errors.push(err) });
  await share.synced;
  const phone = await device('phone');
  const b = await phone.share(NS, { url: relay.url, token: rw });
  await b.synced;
  await until(async () => (await phone.memory.count(NS)) === 3, 'the phone to get the three records of the migrated document');

  share.disconnect();
  await memory.forget(NS, IDS[1]!);
  await share.flush();
  expect(directoryContains(dir, 'fixture-doomed-2')).toBe(false);
  await share.close();
  await memory.close();
  expect(directoryContains(dir, 'fixture-doomed-2')).toBe(false);
  expect(readdirSync(dir).sort()).toEqual(['laptop.sqlite', 'laptop.sqlite-reserve']);

  // Opened again: nothing left to move, the format is this release's.
  const db = new Database(join(dir, 'laptop.sqlite'), { readonly: true });
  expect(db.prepare("SELECT v FROM meta WHERE k = 'version'").pluck().get()).toBe(1005);
  db.close();
  const again = await openMemory({ name: 'laptop', directory: dir });
  expect(await again.count(NS)).toBe(2);
  expect((await replicaOf(again).docLog.load(namespaceKey(NS))).updates.length).toBe(1); // compacted by the forget
  await again.close();
  expect(errors.concat(phone.errors)).toEqual([]);
});

it('an unreadable <name>-sync.sqlite is STORAGE_FAILED (corrupt) naming it, is left as it is, and the memory opens once it is moved away', async () => {
  const dir = tempDir();
  const old = join(dir, 'laptop-sync.sqlite');
  writeFileSync(old, Buffer.alloc(4096, 7));
  await expect(openMemory({ name: 'laptop', directory: dir })).rejects.toMatchObject({ code: 'STORAGE_FAILED', details: { storage: { reason: 'corrupt', path: old } } });
  expect(readdirSync(dir).sort()).toEqual(['laptop-sync.sqlite', 'laptop.sqlite']);
  rmSync(old);
  const memory = await openMemory({ name: 'laptop', directory: dir });
  expect(await memory.count(NS)).toBe(0);
  await memory.close();
});
