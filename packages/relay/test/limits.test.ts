import * as encoding from 'lib0/encoding';
import { afterEach, describe, expect, it } from 'vitest';
import * as sync from 'y-protocols/sync';
import * as Y from 'yjs';
import { CLOSE } from '../src/index.ts';
import { cleanup, client, closeCode, rawConnect, synced, testRelay, token, until } from './helpers.ts';

const ROOM = 'u=alice;s=shared';
const PATH = `/${encodeURIComponent(ROOM)}`;

afterEach(cleanup);

/** A sync update message carrying `update`. */
function updateMessage(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 0);
  sync.writeUpdate(encoder, update);
  return encoding.toUint8Array(encoder);
}

/** An update that sets `key` to a string of `size` characters in a fresh doc. */
function bigUpdate(key: string, size: number): Uint8Array {
  const doc = new Y.Doc();
  doc.getMap('records').set(key, 'x'.repeat(size));
  return Y.encodeStateAsUpdate(doc);
}

async function openSocket(url: string, path: string) {
  const attempt = await rawConnect(url, path);
  if (attempt.kind !== 'open') throw new Error(`expected the socket to open, got ${attempt.status}`);
  return attempt.socket;
}

describe('limits', () => {
  it('closes a socket that sends a message over maxMessageBytes with 1009, storing nothing', async () => {
    const relay = await testRelay({ maxMessageBytes: 4096 });
    const socket = await openSocket(relay.url, `${PATH}?token=${await token([ROOM])}`);
    const closed = closeCode(socket);
    socket.send(updateMessage(bigUpdate('r1', 5000)));
    expect(await closed).toBe(CLOSE.messageTooBig);
    const reader = client(relay.url, ROOM, await token([ROOM]));
    await synced(reader.provider);
    expect(reader.doc.getMap('records').size).toBe(0);
  });

  it('refuses an update that would grow the document past maxDocumentBytes with 4413', async () => {
    const relay = await testRelay({ maxDocumentBytes: 8192, maxMessageBytes: 64 * 1024 });
    const rw = await token([ROOM]);
    const reader = client(relay.url, ROOM, rw);
    await synced(reader.provider);
    const first = await openSocket(relay.url, `${PATH}?token=${rw}`);
    first.send(updateMessage(bigUpdate('r1', 5000)));
    await until(() => reader.doc.getMap('records').has('r1'), 'r1 to be stored and forwarded');
    const second = await openSocket(relay.url, `${PATH}?token=${rw}`);
    const closed = closeCode(second);
    second.send(updateMessage(bigUpdate('r2', 5000)));
    expect(await closed).toBe(CLOSE.documentTooLarge);
    const late = client(relay.url, ROOM, rw);
    await synced(late.provider);
    expect([...late.doc.getMap('records').keys()]).toEqual(['r1']);
  });

  it('compacts once for a room near maxDocumentBytes, then refuses further oversized updates without compacting again', async () => {
    const compactions: string[] = [];
    const logger = { error() {}, warn() {}, info() {}, debug: (msg: string) => void (msg === 'compacted' && compactions.push(msg)) };
    // One subject opens seven sockets and triggers compactions: a budget that a loaded machine's timings cannot exhaust.
    const relay = await testRelay({ maxDocumentBytes: 8192, maxMessageBytes: 64 * 1024, maxCpuMsPerSecond: 1000, logger });
    const rw = await token([ROOM]);
    const reader = client(relay.url, ROOM, rw);
    await synced(reader.provider);
    const first = await openSocket(relay.url, `${PATH}?token=${rw}`);
    first.send(updateMessage(bigUpdate('r1', 5000)));
    await until(() => reader.doc.getMap('records').has('r1'), 'r1 to be stored and forwarded');
    expect(compactions).toHaveLength(0);
    // The first oversized update compacts (r1 was stored since the last compaction); it
    // does not free enough, so every later one is refused at once.
    for (let i = 0; i < 4; i++) {
      const socket = await openSocket(relay.url, `${PATH}?token=${rw}`);
      const closed = closeCode(socket);
      socket.send(updateMessage(bigUpdate(`big${i}`, 5000)));
      expect(await closed).toBe(CLOSE.documentTooLarge);
    }
    expect(compactions).toHaveLength(1);
    // A write that fits makes the room dirty again: the next oversized update compacts once more.
    const watcher = client(relay.url, ROOM, rw);
    await synced(watcher.provider);
    reader.doc.getMap('records').set('small', 1);
    await until(() => watcher.doc.getMap('records').get('small') === 1, 'the small write to be stored and forwarded');
    const last = await openSocket(relay.url, `${PATH}?token=${rw}`);
    const closed = closeCode(last);
    last.send(updateMessage(bigUpdate('big-last', 5000)));
    expect(await closed).toBe(CLOSE.documentTooLarge);
    expect(compactions).toHaveLength(2);
  });

  it('answers 429 once a subject holds maxConnectionsPerSubject sockets, and admits again after one closes', async () => {
    const relay = await testRelay({ maxConnectionsPerSubject: 2 });
    const mine = await token([ROOM], { subject: 'device-1' });
    const one = await openSocket(relay.url, `${PATH}?token=${mine}`);
    await openSocket(relay.url, `${PATH}?token=${mine}`);
    const third = await rawConnect(relay.url, `${PATH}?token=${mine}`);
    expect(third.kind === 'refused' && third.status).toBe(429);
    // Another subject is not affected.
    expect((await rawConnect(relay.url, `${PATH}?token=${await token([ROOM], { subject: 'device-2' })}`)).kind).toBe('open');
    one.close();
    await until(() => relay.stats().connections === 2, 'the relay to see the socket closed');
    expect((await rawConnect(relay.url, `${PATH}?token=${mine}`)).kind).toBe('open');
  });

  it('closes a socket that sends a malformed or text message with 4400', async () => {
    const relay = await testRelay();
    const rw = await token([ROOM]);
    const garbage = await openSocket(relay.url, `${PATH}?token=${rw}`);
    const garbageClosed = closeCode(garbage);
    garbage.send(new Uint8Array([0, 2, 200, 1, 2]));
    expect(await garbageClosed).toBe(CLOSE.badMessage);
    const unknown = await openSocket(relay.url, `${PATH}?token=${rw}`);
    const unknownClosed = closeCode(unknown);
    unknown.send(new Uint8Array([9, 0]));
    expect(await unknownClosed).toBe(CLOSE.badMessage);
    const text = await openSocket(relay.url, `${PATH}?token=${rw}`);
    const textClosed = closeCode(text);
    text.send('hello');
    expect(await textClosed).toBe(CLOSE.badMessage);
  });
});

describe('GET /healthz', () => {
  it('answers JSON with the open rooms and connections', async () => {
    const relay = await testRelay();
    const before = await fetch(`http://127.0.0.1:${relay.port}/healthz`);
    expect(before.status).toBe(200);
    expect(before.headers.get('content-type')).toBe('application/json');
    expect(await before.json()).toMatchObject({ status: 'ok', rooms: 0, connections: 0, refusedWrites: 0 });
    const a = client(relay.url, ROOM, await token([ROOM]));
    await synced(a.provider);
    expect(await (await fetch(`http://127.0.0.1:${relay.port}/healthz`)).json()).toMatchObject({ status: 'ok', rooms: 1, connections: 1 });
    const other = await fetch(`http://127.0.0.1:${relay.port}/anything`);
    expect(other.status).toBe(404);
    expect(await other.json()).toHaveProperty('error');
  });
});

describe('the CPU budget per token subject', () => {
  it('makes a subject past it wait, losing nothing it sent, and refuses its new sockets with 429 meanwhile', async () => {
    const relay = await testRelay({ maxCpuMsPerSecond: 2 });
    const rw = await token([ROOM], { subject: 'heavy' });
    const writer = client(relay.url, ROOM, rw);
    const reader = client(relay.url, ROOM, await token([ROOM], { subject: 'reader' }));
    // Joining is charged to the subject too (the room's load, the first sync answer): at 2 ms a
    // second, a loaded machine's join alone can take seconds to pay back, so it is bounded as
    // generously as the wait below.
    await Promise.all([synced(writer.provider, 200_000), synced(reader.provider, 200_000)]);
    const closes: number[] = [];
    writer.provider.on('connection-close', (event: { code: number } | null) => closes.push(event?.code ?? 0));
    // 60 updates cost far more than 2 ms: the subject waits for its budget between them.
    for (let i = 0; i < 60; i++) writer.doc.getMap('records').set(`r${i}`, 'x'.repeat(1000));
    const statuses: number[] = [];
    while (reader.doc.getMap('records').size < 60 && !statuses.includes(429)) {
      const attempt = await rawConnect(relay.url, `${PATH}?token=${rw}`);
      if (attempt.kind === 'refused') statuses.push(attempt.status);
      else attempt.socket.terminate();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(statuses).toContain(429);
    // The subject's debt is paid back at 2 ms a second; on a loaded machine every update costs
    // more of it (the handling is timed), so the wait is bounded generously, not tightly.
    await until(() => reader.doc.getMap('records').size === 60, 'every update to arrive', 200_000);
    expect(closes).toEqual([]);
  }, 240_000);
});
