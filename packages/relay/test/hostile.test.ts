import * as encoding from 'lib0/encoding';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { CLOSE } from '../src/index.ts';
import { cleanup, client, closeCode, directoryContains, rawConnect, synced, testRelay, token, until } from './helpers.ts';

const ROOM = 'u=alice;s=shared';
const PATH = `/${encodeURIComponent(ROOM)}`;

afterEach(cleanup);

async function openSocket(url: string, authToken: string): Promise<WebSocket> {
  const attempt = await rawConnect(url, `${PATH}?token=${authToken}`);
  if (attempt.kind !== 'open') throw new Error(`expected the socket to open, got ${attempt.status}`);
  return attempt.socket;
}

/** Sync step 1 (type 0, sync type 0) whose state vector is `[5, 0xff x 10, 1]`: not a state vector. */
function garbageStateVector(): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 0);
  encoding.writeVarUint(encoder, 0);
  encoding.writeVarUint8Array(encoder, new Uint8Array([5, ...new Array<number>(10).fill(0xff), 1]));
  return encoding.toUint8Array(encoder);
}

/** An awareness message (type 1) for client 123456, clock 1, whose state `{x` is not JSON. */
function awarenessNotJson(): Uint8Array {
  const update = encoding.createEncoder();
  encoding.writeVarUint(update, 1);
  encoding.writeVarUint(update, 123456);
  encoding.writeVarUint(update, 1);
  encoding.writeVarString(update, '{x');
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 1);
  encoding.writeVarUint8Array(encoder, encoding.toUint8Array(update));
  return encoding.toUint8Array(encoder);
}

describe('a malformed message', () => {
  for (const [what, message] of [
    ['a sync step 1 with a garbage state vector', garbageStateVector],
    ['an awareness update whose state is not JSON', awarenessNotJson],
  ] as const) {
    it(`(${what}) from a read-only socket closes only that socket with 4400; the room goes on`, async () => {
      const relay = await testRelay();
      const rw = await token([ROOM]);
      const writer = client(relay.url, ROOM, rw);
      const reader = client(relay.url, ROOM, rw);
      await Promise.all([synced(writer.provider), synced(reader.provider)]);
      const closes: number[] = [];
      for (const side of [writer, reader]) side.provider.on('connection-close', (event: { code: number } | null) => closes.push(event?.code ?? 0));

      const attacker = await openSocket(relay.url, await token([ROOM], { access: 'read', subject: 'attacker' }));
      const closed = closeCode(attacker);
      attacker.send(message());
      expect(await closed).toBe(CLOSE.badMessage);

      writer.doc.getMap('records').set('after', 'still forwarded');
      await until(() => reader.doc.getMap('records').get('after') === 'still forwarded', 'the room to go on forwarding');
      expect(closes).toEqual([]);
      expect(relay.stats()).toMatchObject({ rooms: 1, connections: 2 });
    });
  }
});

/** A sync update message (type 0, sync type 2) carrying `update`. */
function updateMessage(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 0);
  encoding.writeVarUint(encoder, 2);
  encoding.writeVarUint8Array(encoder, update);
  return encoding.toUint8Array(encoder);
}

/** A sync step 1 message asking for the whole document. */
function askForEverything(): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 0);
  encoding.writeVarUint(encoder, 0);
  encoding.writeVarUint8Array(encoder, Y.encodeStateVector(new Y.Doc()));
  return encoding.toUint8Array(encoder);
}

/**
 * An update of `bytes` bytes (carrying `marker`) whose dependency never reaches the relay:
 * it overwrites a key whose first value was never sent.
 */
function updateWithMissingDependency(marker: string, bytes: number): Uint8Array {
  const doc = new Y.Doc();
  doc.getMap('records').set('k', 'never sent');
  const before = Y.encodeStateVector(doc);
  doc.getMap('records').set('k', `${marker}${'x'.repeat(bytes)}`);
  return Y.encodeStateAsUpdate(doc, before);
}

describe('updates whose dependencies never arrive', () => {
  it('count against maxDocumentBytes (4413), and neither new clients nor compaction get them', async () => {
    const relay = await testRelay({ maxDocumentBytes: 1024 * 1024, maxMessageBytes: 512 * 1024 });
    const rw = await token([ROOM]);
    const writer = client(relay.url, ROOM, rw);
    await synced(writer.provider);
    writer.doc.getMap('records').set('real', 'a real record');
    const marker = `PENDING-${Date.now()}`;
    const attacker = await openSocket(relay.url, await token([ROOM], { subject: 'attacker' }));
    const closed = closeCode(attacker);
    // Forty 200 KB updates that never integrate: 8 MB against a 1 MiB document.
    for (let i = 0; i < 40 && attacker.readyState === WebSocket.OPEN; i++) attacker.send(updateMessage(updateWithMissingDependency(marker, 200 * 1024)));
    expect(await closed).toBe(CLOSE.documentTooLarge);

    const late = client(relay.url, ROOM, rw);
    await synced(late.provider);
    expect(late.doc.getMap('records').toJSON()).toEqual({ real: 'a real record' });
    expect(late.doc.store.pendingStructs).toBeNull();
    await relay.compact(ROOM);
    expect(directoryContains(relay.dataDir, marker)).toBe(false);
    // The room goes on.
    writer.doc.getMap('records').set('after', 1);
    await until(() => late.doc.getMap('records').get('after') === 1, 'a later write to be forwarded');
  });
});

describe('a socket that does not read', () => {
  it('stops being answered past maxBufferedBytes and is closed with 4507', async () => {
    const warnings: string[] = [];
    const logger = { error() {}, warn: (msg: string) => void warnings.push(msg), info() {}, debug() {} };
    const relay = await testRelay({ maxBufferedBytes: 256 * 1024, logger });
    const rw = await token([ROOM]);
    const writer = client(relay.url, ROOM, rw);
    await synced(writer.provider);
    writer.doc.getMap('records').set('big', 'y'.repeat(100 * 1024));
    const reader = await openSocket(relay.url, await token([ROOM], { access: 'read', subject: 'slow' }));
    await until(() => relay.stats().connections === 2, 'the reader to join');
    const received: number[] = [];
    reader.on('message', (data: Buffer) => received.push(data.byteLength));
    // Stop reading: the kernel's buffers fill, then the relay's.
    (reader as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    for (let i = 0; i < 400; i++) reader.send(askForEverything());
    await until(() => warnings.includes('send buffer full'), 'the relay to notice the full send buffer', 20_000);
    const closed = closeCode(reader, 20_000);
    (reader as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await closed).toBe(CLOSE.sendBufferFull);
    expect(received.length).toBeLessThan(400);
  });
});
