import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { cleanup, client, directoryContains, synced, testRelay, token, until } from './helpers.ts';

const ROOM = 'u=alice;s=shared';

afterEach(cleanup);

const canary = (): string => `CANARY-${randomBytes(8).toString('hex')}`;

describe('compaction', () => {
  it('removes a forgotten record (plain JSON value) from the storage directory', async () => {
    const relay = await testRelay();
    const rw = await token([ROOM]);
    const writer = client(relay.url, ROOM, rw);
    const reader = client(relay.url, ROOM, rw);
    await Promise.all([synced(writer.provider), synced(reader.provider)]);
    const secret = canary();
    const records = writer.doc.getMap('records');
    records.set('r1', { content: `the door code is ${secret}` });
    records.set('r2', { content: 'likes green tea' });
    await until(() => reader.doc.getMap('records').has('r2'), 'the writes to be forwarded');
    expect(directoryContains(relay.dataDir, secret)).toBe(true);

    records.delete('r1');
    await until(() => !reader.doc.getMap('records').has('r1'), 'the forget to be forwarded');
    // Until compaction, the stored update that carried it is still on disk.
    expect(directoryContains(relay.dataDir, secret)).toBe(true);

    await relay.compact(ROOM);
    expect(directoryContains(relay.dataDir, secret)).toBe(false);
    const fresh = client(relay.url, ROOM, rw);
    await synced(fresh.provider);
    expect(fresh.doc.getMap('records').toJSON()).toEqual({ r2: { content: 'likes green tea' } });
  });

  it('removes an overwritten value and a deleted nested record when the last client leaves', async () => {
    const relay = await testRelay();
    const rw = await token([ROOM]);
    const writer = client(relay.url, ROOM, rw);
    await synced(writer.provider);
    const [oldValue, nestedSecret] = [canary(), canary()];
    const records = writer.doc.getMap('records');
    records.set('r1', { content: oldValue });
    const nested = new Y.Map<unknown>();
    records.set('r2', nested);
    nested.set('content', new Y.Text(nestedSecret));
    records.set('r1', { content: 'updated' });
    records.delete('r2');
    const reader = client(relay.url, ROOM, rw);
    await synced(reader.provider);
    expect(reader.doc.getMap('records').toJSON()).toEqual({ r1: { content: 'updated' } });
    expect(directoryContains(relay.dataDir, oldValue)).toBe(true);
    expect(directoryContains(relay.dataDir, nestedSecret)).toBe(true);

    writer.provider.destroy();
    reader.provider.destroy();
    await until(() => relay.stats().rooms === 0, 'the room to be unloaded');
    expect(directoryContains(relay.dataDir, oldValue)).toBe(false);
    expect(directoryContains(relay.dataDir, nestedSecret)).toBe(false);

    const fresh = client(relay.url, ROOM, rw);
    await synced(fresh.provider);
    expect(fresh.doc.getMap('records').toJSON()).toEqual({ r1: { content: 'updated' } });
  });

  it('compacts a room every compactEvery updates and keeps its content', async () => {
    const relay = await testRelay({ compactEvery: 5 });
    const rw = await token([ROOM]);
    const writer = client(relay.url, ROOM, rw);
    const reader = client(relay.url, ROOM, rw);
    await Promise.all([synced(writer.provider), synced(reader.provider)]);
    const secret = canary();
    const records = writer.doc.getMap('records');
    records.set('gone', secret);
    records.delete('gone');
    for (let i = 0; i < 6; i++) records.set(`r${i}`, i);
    await until(() => reader.doc.getMap('records').get('r5') === 5, 'all writes to arrive');
    expect(directoryContains(relay.dataDir, secret)).toBe(false);
    expect(reader.doc.getMap('records').size).toBe(6);
  });
});
