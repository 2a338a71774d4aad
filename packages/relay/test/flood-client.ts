/**
 * A hostile client in its own process (so its work does not slow down the test that
 * measures the others): `node --import tsx flood-client.ts <url> <rooms> <token> <sockets>
 * <perSecond> <kind>`, where `rooms` is one room or a JSON array of rooms. It keeps
 * `sockets` sockets open (to the rooms in turn), reconnecting whenever one is closed or
 * refused, until the process is killed:
 * - `pending`: each socket sends `perSecond` updates per second whose dependency never
 *   reaches the relay (5 KB, then 1 byte), so that each makes Yjs merge again everything
 *   that waits;
 * - `valid`: `perSecond` small updates per second that integrate, stored and forwarded;
 * - `reload`: each socket sends nothing and drops after 1000 / `perSecond` ms, then
 *   connects again: a room nobody else holds is loaded for every connection;
 * - `awareness`: `perSecond` awareness updates per second, each publishing 50 client ids
 *   never published before.
 * Every 200 ms it sends its parent the counts so far: {@link FloodReport}.
 */
import * as encoding from 'lib0/encoding';
import WebSocket from 'ws';
import * as sync from 'y-protocols/sync';
import * as Y from 'yjs';

/** What the flooder tells its parent. */
export interface FloodReport {
  /** Sockets that opened. */
  opened: number;
  /** Upgrades refused, by HTTP status. */
  refused: Record<string, number>;
  /** Open sockets the relay closed, by close code. */
  closed: Record<string, number>;
  /** Messages sent. */
  sent: number;
}

type Kind = 'pending' | 'valid' | 'reload' | 'awareness';
const [url, roomArg, token, sockets, perSecond, kind] = process.argv.slice(2) as [string, string, string, string, string, Kind];
const rooms: string[] = roomArg.startsWith('[') ? (JSON.parse(roomArg) as string[]) : [roomArg];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const report: FloodReport = { opened: 0, refused: {}, closed: {}, sent: 0 };
const count = (tally: Record<string, number>, key: number | string): void => {
  tally[String(key)] = (tally[String(key)] ?? 0) + 1;
};

function syncMessage(write: (encoder: encoding.Encoder) => void): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 0);
  write(encoder);
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

/** An awareness message publishing 50 client ids from `first` on, each with a small state. */
function awarenessFlood(first: number): Uint8Array {
  const update = encoding.createEncoder();
  encoding.writeVarUint(update, 50);
  for (let id = first; id < first + 50; id++) {
    encoding.writeVarUint(update, id);
    encoding.writeVarUint(update, 1);
    encoding.writeVarString(update, JSON.stringify({ user: { name: `device ${id}`, color: '#ff0000' } }));
  }
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, 1);
  encoding.writeVarUint8Array(encoder, encoding.toUint8Array(update));
  return encoding.toUint8Array(encoder);
}

const writer = new Y.Doc();
let nextClientId = 1_000_000;
function next(i: number): Uint8Array {
  if (kind === 'pending') return syncMessage((encoder) => sync.writeUpdate(encoder, updateWithMissingDependency(`k${i}`, i < 180 ? 5000 : 1)));
  if (kind === 'awareness') return awarenessFlood((nextClientId += 50));
  const before = Y.encodeStateVector(writer);
  writer.getMap('records').set(`k${i % 100}`, 'x'.repeat(200));
  return syncMessage((encoder) => sync.writeUpdate(encoder, Y.encodeStateAsUpdate(writer, before)));
}

function open(room: string): Promise<WebSocket | undefined> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${url}/${encodeURIComponent(room)}?token=${token}`);
    socket.once('open', () => {
      report.opened++;
      socket.once('close', (code: number) => count(report.closed, code));
      resolve(socket);
    });
    socket.once('unexpected-response', (_request, response) => {
      count(report.refused, response.statusCode ?? 0);
      resolve(undefined);
    });
    socket.once('error', () => resolve(undefined));
  });
}

async function one(first: number): Promise<void> {
  let i = 0;
  for (let turn = first; ; turn++) {
    const socket = await open(rooms[turn % rooms.length]!);
    if (!socket) {
      await sleep(100);
      continue;
    }
    if (kind === 'reload') {
      // Nothing sent: connecting is enough to make the relay load the room.
      await sleep(1000 / Number(perSecond));
      socket.terminate();
      continue;
    }
    while (socket.readyState === WebSocket.OPEN) {
      // The relay reads only so fast: more queued here would cost this machine's CPU (an
      // attacker's own, elsewhere in real life) without pressing the relay harder.
      if (socket.bufferedAmount < 256 * 1024) {
        socket.send(next(i++));
        report.sent++;
      }
      await sleep(1000 / Number(perSecond));
    }
    socket.terminate();
  }
}

for (let s = 0; s < Number(sockets); s++) void one(s);
setInterval(() => process.send?.(report), 200).unref();
process.send?.('started');
