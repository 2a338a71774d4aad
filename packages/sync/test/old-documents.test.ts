import 'fake-indexeddb/auto';
import { Dexie } from 'dexie';
import { afterEach, expect, it } from 'vitest';
import WebSocket from 'ws';
import { namespaceKey, openMemory } from '@zeromem/core';
import { replicaOf } from '@zeromem/core/internal';
import { shareNamespace } from '../src/index.ts';
import { cleanup, testRelay, token, until } from './helpers.ts';

// A global IndexedDB, as browsers have: the releases before the document logs kept a
// memory's shared documents in a database of their own, `<memory name>-sync`.
const NS = { userId: 'alice', scope: 'browser' };
const room = namespaceKey(NS);

afterEach(cleanup);

it('a browser memory\'s old <name>-sync database moves into the memory\'s store when the room is shared, and is deleted', async () => {
  const relay = await testRelay();
  const rw = await token([room]);
  const options = { url: relay.url, token: rw, WebSocketPolyfill: WebSocket, pollMs: 20, maxBackoffMs: 100, onError: () => undefined };
  // A document made by a share (the bytes sync stores), written where the old release kept it.
  const maker = await openMemory({ name: 'maker' });
  const share = await shareNamespace(maker, NS, options);
  await share.synced;
  await maker.remember({ namespace: NS, content: 'Moved from the old database' });
  await share.close();
  const { updates } = await replicaOf(maker).docLog.load(room);
  await maker.close();
  const old = new Dexie('tab-sync');
  old.version(1).stores({ updates: '++seq, room', rooms: 'room' });
  await old.table('updates').bulkAdd([...updates.map((update) => ({ room, update })), { room: 'u=other', update: updates[0] }]);
  await old.table('rooms').put({ room, cursor: 0 });
  old.close();

  const memory = await openMemory({ name: 'tab' });
  const moved = await shareNamespace(memory, NS, { ...options, url: 'ws://127.0.0.1:9' }); // no relay: the document comes from the old database
  await until(async () => (await memory.count(NS)) === 1, 'the record of the moved document in the store');
  const log = await replicaOf(memory).docLog.load(room);
  expect(log.updates.length).toBeGreaterThan(0);
  expect(log.cursor).toBeGreaterThanOrEqual(0);
  const left = new Dexie('tab-sync');
  left.version(1).stores({ updates: '++seq, room', rooms: 'room' });
  expect((await left.table('updates').toArray()).map((row: { room: string }) => row.room)).toEqual(['u=other']); // another room's, moved when it is shared
  expect(await left.table('rooms').count()).toBe(0);
  left.close();
  await moved.close();

  // The last room moved: the old database is deleted.
  const other = await shareNamespace(memory, { userId: 'other' }, { ...options, token: await token(['u=other']) });
  await other.close();
  expect((await indexedDB.databases()).map((database) => database.name)).not.toContain('tab-sync');
  await memory.close();
});
