/**
 * Child process of the load benchmark (relay-load.ts): holds a share of the clients, every
 * client of a room in this process so one clock times a write from the writer to every
 * receiver. Clients speak the server's own protocol: plain y-websocket (`WebsocketProvider`)
 * to the zeromem relay, `@hocuspocus/provider` to Hocuspocus; one websocket and one Y.Doc
 * per client, awareness on (renewed every 15 s, as in an app).
 *
 * Driven over IPC by {@link ClientCommand}s, answered by {@link ClientReply}s.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import WebSocket from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { issueToken } from '@zeromem/relay';
import { mulberry32 as prng } from '../kit/mulberry32.ts';

/** Which client library (and so which protocol) the clients use. */
export type ClientKind = 'y-websocket' | 'hocuspocus';

/** One room of this process: its name and, per client, the server it connects to. */
export interface RoomPlan {
  room: string;
  clients: Array<{ url: string; instance: number; subject: string }>;
}

export type ClientCommand =
  | { type: 'open'; kind: ClientKind; secret: string; rooms: RoomPlan[]; concurrency: number; timeoutMs: number }
  | { type: 'write'; ratePerSecond: number; durationMs: number; drainMs: number; seed: number }
  | { type: 'close' };

/** Write-to-visible samples (ms) of one phase, by where the receiver was connected. */
export interface WriteResult {
  writes: number;
  sameInstance: number[];
  otherInstance: number[];
  /** Receivers that had not seen a write when the drain ended. */
  missing: number;
  /** Of those: on another instance than the writer; whose document held updates it could not apply (an earlier one never arrived). */
  missingOtherInstance: number;
  missingBehindGap: number;
  /** Sockets closed or dropped since the clients connected, by close code. */
  closeCodes: Record<string, number>;
  /** p99 of this process's event-loop delay during the phase (ms): how much of the latency is the clients' own queueing. */
  eventLoopDelayP99: number;
}

export type ClientReply =
  | { type: 'opened'; connected: number; failed: number; ms: number }
  | ({ type: 'written' } & WriteResult)
  | { type: 'closed' };

interface Client {
  doc: Y.Doc;
  instance: number;
  destroy(): void;
}

interface Pending {
  start: number;
  instance: number;
  waiting: Set<Client>;
}

const send = (reply: ClientReply) => process.send!(reply);
// Every y-websocket provider adds a process 'exit' listener (to drop its awareness state): a
// thousand clients in one process are expected here, not a leak.
process.setMaxListeners(0);
const rooms: Array<{ plan: RoomPlan; clients: Client[] }> = [];
const pending = new Map<string, Pending>();
const samples = { sameInstance: [] as number[], otherInstance: [] as number[] };
let closeCodes: Record<string, number> = {};
let sequence = 0;

function noteClose(code: number | undefined) {
  const key = String(code ?? 'none');
  closeCodes[key] = (closeCodes[key] ?? 0) + 1;
}

/** Opens one client; resolves once it synced (or rejects on timeout). */
function openClient(kind: ClientKind, room: string, url: string, instance: number, token: string, timeoutMs: number): Promise<Client> {
  const doc = new Y.Doc();
  let synced = false;
  let destroyed = false;
  const client: Client = { doc, instance, destroy: () => undefined };
  doc.getMap('records').observe((event) => {
    const now = performance.now();
    for (const key of event.keysChanged) {
      const write = pending.get(key);
      if (!write?.waiting.delete(client)) continue;
      (client.instance === write.instance ? samples.sameInstance : samples.otherInstance).push(now - write.start);
      if (write.waiting.size === 0) pending.delete(key);
    }
  });
  return new Promise<Client>((resolve, reject) => {
    const timer = setTimeout(() => {
      client.destroy();
      reject(new Error(`not synced within ${timeoutMs} ms`));
    }, timeoutMs);
    const ready = () => {
      if (synced) return;
      synced = true;
      clearTimeout(timer);
      resolve(client);
    };
    if (kind === 'y-websocket') {
      const provider = new WebsocketProvider(url, encodeURIComponent(room), doc, {
        WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
        params: { token },
        disableBc: true,
      });
      provider.on('sync', (isSynced: boolean) => isSynced && ready());
      provider.on('connection-close', (event: CloseEvent | null) => synced && !destroyed && noteClose(event?.code));
      client.destroy = () => {
        destroyed = true;
        provider.destroy();
        doc.destroy();
      };
    } else {
      // One socket per client, as with y-websocket (Hocuspocus could multiplex documents on one).
      const socket = new HocuspocusProviderWebsocket({ url, WebSocketPolyfill: WebSocket });
      const provider = new HocuspocusProvider({ websocketProvider: socket, name: room, document: doc, token });
      provider.attach();
      provider.on('synced', ready);
      provider.on('close', ({ event }: { event: { code: number } }) => synced && !destroyed && noteClose(event.code));
      provider.on('authenticationFailed', () => noteClose(4401));
      client.destroy = () => {
        destroyed = true;
        provider.destroy();
        socket.destroy();
        doc.destroy();
      };
    }
  });
}

async function open(command: Extract<ClientCommand, { type: 'open' }>): Promise<void> {
  const started = performance.now();
  let connected = 0;
  let failed = 0;
  const jobs = command.rooms.flatMap((plan) => plan.clients.map((c) => ({ plan, c })));
  for (const plan of command.rooms) rooms.push({ plan, clients: [] });
  const byRoom = new Map(rooms.map((r) => [r.plan.room, r]));
  for (let i = 0; i < jobs.length; i += command.concurrency) {
    await Promise.all(
      jobs.slice(i, i + command.concurrency).map(async ({ plan, c }) => {
        try {
          const token = await issueToken({ secret: command.secret, subject: c.subject, rooms: [plan.room], ttlSeconds: 3600 });
          byRoom.get(plan.room)!.clients.push(await openClient(command.kind, plan.room, c.url, c.instance, token, command.timeoutMs));
          connected++;
        } catch {
          failed++;
        }
      }),
    );
  }
  closeCodes = {};
  send({ type: 'opened', connected, failed, ms: Math.round(performance.now() - started) });
}

/** One ~250-byte record-like value (as a zeromem record in the shared document). */
function record(random: () => number, key: string): Record<string, unknown> {
  const words = Array.from({ length: 18 }, () => Math.floor(random() * 1e6).toString(36)).join(' ');
  return { id: key, content: words, tags: ['load'], importance: 0.5, createdAt: Date.now() };
}

/** Open-loop writes: `ratePerSecond` on schedule for `durationMs` (a late tick catches up), then waits for every receiver. */
async function write(command: Extract<ClientCommand, { type: 'write' }>): Promise<void> {
  const random = prng(command.seed);
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  samples.sameInstance = [];
  samples.otherInstance = [];
  pending.clear();
  const writable = rooms.filter((r) => r.clients.length >= 2);
  const total = Math.round((command.ratePerSecond * command.durationMs) / 1000);
  let writes = 0;
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - started) * command.ratePerSecond) / 1000));
      for (; writes < due && writable.length > 0; writes++) {
        const room = writable[Math.floor(random() * writable.length)]!;
        const writer = room.clients[Math.floor(random() * room.clients.length)]!;
        const key = `k${process.pid}-${sequence++}`;
        pending.set(key, { start: performance.now(), instance: writer.instance, waiting: new Set(room.clients.filter((c) => c !== writer)) });
        writer.doc.getMap('records').set(key, record(random, key));
      }
      if (writes >= total || writable.length === 0) resolve();
      else setTimeout(tick, 5);
    };
    tick();
  });
  const deadline = performance.now() + command.drainMs;
  while (pending.size > 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  let missing = 0;
  let missingOtherInstance = 0;
  let missingBehindGap = 0;
  for (const write of pending.values()) {
    missing += write.waiting.size;
    for (const client of write.waiting) {
      if (client.instance !== write.instance) missingOtherInstance++;
      if (client.doc.store.pendingStructs !== null) missingBehindGap++;
    }
  }
  pending.clear();
  loopDelay.disable();
  const eventLoopDelayP99 = Math.round(loopDelay.percentile(99) / 1e4) / 100;
  send({ type: 'written', writes, sameInstance: samples.sameInstance, otherInstance: samples.otherInstance, missing, missingOtherInstance, missingBehindGap, closeCodes, eventLoopDelayP99 });
}

process.on('message', (command: ClientCommand) => {
  if (command.type === 'open') void open(command);
  else if (command.type === 'write') void write(command);
  else {
    for (const room of rooms) for (const client of room.clients) client.destroy();
    send({ type: 'closed' });
    setTimeout(() => process.exit(0), 100);
  }
});
