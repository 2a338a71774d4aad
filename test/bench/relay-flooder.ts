/**
 * Child process of relay-flood.ts: floods one relay room from raw websockets, as an
 * attacker holding a token would, and reconnects (after 100 ms) whenever the relay closes
 * it. Each connection uses a fresh Y.Doc, so its updates depend only on its own earlier
 * ones. Kinds: `update` (one small map write per message) or `awareness` (one awareness
 * update per message, increasing clock). Target rate: `rate` messages per second, sent in
 * 10 ms ticks while the socket's send buffer is under 4 MiB. Reports over IPC, on `stop`,
 * the messages sent and the close codes seen.
 *
 *   node --import tsx relay-flooder.ts <url> <room> <token> <kind> <rate>
 */
import * as encoding from 'lib0/encoding';
import WebSocket from 'ws';
import * as Y from 'yjs';

const [url, room, token, kind, rateText] = process.argv.slice(2) as [string, string, string, 'update' | 'awareness', string];
const perTick = Math.max(1, Math.round(Number(rateText) / 100));
let sent = 0;
const closes: Record<string, number> = {};
let stopped = false;
let socket: WebSocket | undefined;

function frame(type: number, body: (encoder: encoding.Encoder) => void): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, type);
  body(encoder);
  return encoding.toUint8Array(encoder);
}

function connect(): void {
  if (stopped) return;
  const doc = new Y.Doc();
  let n = 0;
  const next = (): Uint8Array => {
    n++;
    if (kind === 'awareness') {
      const update = encoding.createEncoder();
      encoding.writeVarUint(update, 1);
      encoding.writeVarUint(update, doc.clientID);
      encoding.writeVarUint(update, n);
      encoding.writeVarString(update, JSON.stringify({ flood: n }));
      return frame(1, (e) => encoding.writeVarUint8Array(e, encoding.toUint8Array(update)));
    }
    // The transaction's own update, as a provider sends it (a diff against a state vector
    // would carry the whole delete set every time).
    let update: Uint8Array = new Uint8Array();
    const keep = (u: Uint8Array): void => void (update = u);
    doc.on('update', keep);
    doc.getMap('flood').set(`k${n % 1000}`, n);
    doc.off('update', keep);
    return frame(0, (e) => {
      encoding.writeVarUint(e, 2);
      encoding.writeVarUint8Array(e, update);
    });
  };
  const ws = new WebSocket(`${url}/${encodeURIComponent(room)}?token=${token}`, { perMessageDeflate: false });
  socket = ws;
  let timer: NodeJS.Timeout | undefined;
  ws.on('open', () => {
    timer = setInterval(() => {
      if (ws.readyState !== WebSocket.OPEN || ws.bufferedAmount > 4 * 1024 * 1024) return;
      for (let i = 0; i < perTick; i++) {
        ws.send(next());
        sent++;
      }
    }, 10);
  });
  ws.on('message', () => {});
  ws.on('error', () => {});
  ws.on('close', (code: number) => {
    clearInterval(timer);
    doc.destroy();
    closes[code] = (closes[code] ?? 0) + 1;
    setTimeout(connect, 100);
  });
}

process.on('message', (message: string) => {
  if (message !== 'stop') return;
  stopped = true;
  socket?.terminate();
  process.send!({ sent, closes });
  setTimeout(() => process.exit(0), 50);
});
connect();
process.send!({ ready: true });
