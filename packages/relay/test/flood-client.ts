/**
 * A hostile client in its own process (so its work does not slow down the test that
 * measures the others): `node --import tsx flood-client.ts <url> <room> <token> <sockets>
 * <perSecond> <pending|valid>` keeps `sockets` sockets open to the room, reconnecting
 * whenever one is closed or refused, each sending `perSecond` messages per second until the
 * process is killed:
 * - `pending`: updates whose dependency never reaches the relay (5 KB, then 1 byte), so
 *   that each makes Yjs merge again everything that waits;
 * - `valid`: small updates that integrate, stored and forwarded to the other sockets.
 */
import * as encoding from 'lib0/encoding';
import WebSocket from 'ws';
import * as sync from 'y-protocols/sync';
import * as Y from 'yjs';

const [url, room, token, sockets, perSecond, kind] = process.argv.slice(2) as [string, string, string, string, string, 'pending' | 'valid'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function updateMessage(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 0);
  sync.writeUpdate(encoder, update);
  return encoding.toUint8Array(encoder);
}

/** An update of about `bytes` bytes that overwrites a key whose first value never reaches the relay: it stays pending. */
function updateWithMissingDependency(key: string, bytes: number): Uint8Array {
  const doc = new Y.Doc();
  doc.getMap('records').set(key, 'never sent');
  const before = Y.encodeStateVector(doc);
  doc.getMap('records').set(key, 'x'.repeat(bytes));
  return Y.encodeStateAsUpdate(doc, before);
}

const writer = new Y.Doc();
function next(i: number): Uint8Array {
  if (kind === 'pending') return updateMessage(updateWithMissingDependency(`k${i}`, i < 180 ? 5000 : 1));
  const before = Y.encodeStateVector(writer);
  writer.getMap('records').set(`k${i % 100}`, 'x'.repeat(200));
  return updateMessage(Y.encodeStateAsUpdate(writer, before));
}

function open(): Promise<WebSocket | undefined> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${url}/${encodeURIComponent(room)}?token=${token}`);
    socket.once('open', () => resolve(socket));
    socket.once('unexpected-response', () => resolve(undefined));
    socket.once('error', () => resolve(undefined));
  });
}

async function one(): Promise<void> {
  let i = 0;
  for (;;) {
    const socket = await open();
    if (!socket) {
      await sleep(100);
      continue;
    }
    while (socket.readyState === WebSocket.OPEN) {
      // The relay reads only so fast: more queued here would cost this machine's CPU (an
      // attacker's own, elsewhere in real life) without pressing the relay harder.
      if (socket.bufferedAmount < 256 * 1024) socket.send(next(i++));
      await sleep(1000 / Number(perSecond));
    }
    socket.terminate();
  }
}

for (let s = 0; s < Number(sockets); s++) void one();
process.send?.('started');
