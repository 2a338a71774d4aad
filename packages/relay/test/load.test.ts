import * as encoding from 'lib0/encoding';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { CLOSE } from '../src/index.ts';
import { cleanup, client, closeCode, rawConnect, synced, testRelay, token, until } from './helpers.ts';

const ROOM = 'u=alice;s=shared';
const PATH = `/${encodeURIComponent(ROOM)}`;

afterEach(cleanup);

async function openSocket(url: string, authToken: string): Promise<WebSocket> {
  const attempt = await rawConnect(url, `${PATH}?token=${authToken}`);
  if (attempt.kind !== 'open') throw new Error(`expected the socket to open, got ${attempt.status}`);
  return attempt.socket;
}

/** `count` sync update messages, each setting one more key (in order: each depends on the one before). */
function updateMessages(count: number, valueBytes = 8): Uint8Array[] {
  const doc = new Y.Doc();
  const messages: Uint8Array[] = [];
  doc.on('update', (update: Uint8Array) => {
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, 0);
    encoding.writeVarUint(encoder, 2);
    encoding.writeVarUint8Array(encoder, update);
    messages.push(encoding.toUint8Array(encoder));
  });
  for (let i = 0; i < count; i++) doc.getMap('records').set(`r${i}`, 'v'.repeat(valueBytes));
  return messages;
}

describe('per-socket rate limits', () => {
  it('close a socket that sends more than maxMessagesPerSecond with 4529; the room goes on', async () => {
    const relay = await testRelay({ maxMessagesPerSecond: 20 });
    const rw = await token([ROOM]);
    const writer = client(relay.url, ROOM, rw);
    const reader = client(relay.url, ROOM, rw);
    await Promise.all([synced(writer.provider), synced(reader.provider)]);
    const flooder = await openSocket(relay.url, await token([ROOM], { access: 'read', subject: 'flooder' }));
    const closed = closeCode(flooder);
    // Query-awareness messages: one byte each, answered every time.
    for (let i = 0; i < 1000; i++) flooder.send(new Uint8Array([3]));
    expect(await closed).toBe(CLOSE.rateLimited);
    writer.doc.getMap('records').set('after', 1);
    await until(() => reader.doc.getMap('records').get('after') === 1, 'the room to go on');
  });

  it('close a socket that sends more than maxBytesPerSecond with 4529, storing what came within the limit only', async () => {
    const relay = await testRelay({ maxBytesPerSecond: 64 * 1024 });
    const flooder = await openSocket(relay.url, await token([ROOM], { subject: 'flooder' }));
    const closed = closeCode(flooder);
    const messages = updateMessages(100, 16 * 1024);
    for (const message of messages) flooder.send(message);
    expect(await closed).toBe(CLOSE.rateLimited);
    const late = client(relay.url, ROOM, await token([ROOM]));
    await synced(late.provider);
    const stored = late.doc.getMap('records').size;
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(100);
  });
});

describe('group commit', () => {
  it('stores a burst of updates in fewer durable writes than updates, and forwards every one', async () => {
    const relay = await testRelay({ maxMessagesPerSecond: 100_000 });
    const rw = await token([ROOM]);
    const reader = client(relay.url, ROOM, rw);
    await synced(reader.provider);
    const writer = await openSocket(relay.url, rw);
    const before = relay.stats().durableWrites;
    const messages = updateMessages(200);
    for (const message of messages) writer.send(message);
    await until(() => reader.doc.getMap('records').size === 200, 'every update to be forwarded');
    expect(relay.stats().storedUpdates).toBeGreaterThanOrEqual(200);
    expect(relay.stats().durableWrites - before).toBeLessThanOrEqual(100);
  });
});
