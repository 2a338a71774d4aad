/**
 * Relay benchmark (issue: sync, item 6, the relay's part): loopback write-to-visible
 * latency between two plain Y.Doc clients (the standard y-websocket `WebsocketProvider`)
 * through the relay, and the relay's memory per open document.
 *
 *   npx tsx test/bench/relay-speed.ts [--runs 3]
 *
 * The relay runs in a child process (test/bench/relay-host.ts, the library the bin runs),
 * the clients in this one.
 * - latency: client A sets one map entry (a record-like object, ~250 bytes of JSON); the
 *   time until client B's map observer sees it. Sequential, 100 warm-up writes, then 1,000
 *   samples. Every write is applied, fsynced into SQLite and only then forwarded.
 *   Next to it, in the same run and alternating who goes first, the transport floor: the
 *   same payload size sent from one raw websocket to another through a bare forwarder
 *   (no Yjs, no storage, no auth) in the same child process.
 * - memory: the relay's heap + external memory (after two full GCs) with N rooms open
 *   (one socket each) minus with none, divided by N; for empty documents and for
 *   documents of 100 records (~250 bytes each), loaded from storage.
 *
 * Prints a Markdown table; writes JSON to test/bench/results/relay-speed.json (the latest
 * run, the earlier ones under `history`). Timing is never a pass/fail test.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as encoding from 'lib0/encoding';
import WebSocket from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { issueToken } from '@zeromem/relay';
import { type Latency, markdownTable, medianOf, summarize } from './stats.ts';
import { mulberry32 as prng } from '../kit/mulberry32.ts';
import { writeWithHistory } from './results-history.ts';

const here = dirname(fileURLToPath(import.meta.url));
const outFile = join(here, 'results', 'relay-speed.json');
const SECRET = 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
const LATENCY = { warmup: 100, samples: 1000 };
const MEMORY_ROOMS = 200;
const RECORDS_PER_DOC = 100;

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const RUNS = Number(values.runs);
const log = (message: string) => process.stderr.write(`${message}\n`);

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  rooms: number;
}

interface Host {
  relayUrl: string;
  forwardUrl: string;
  measure(): Promise<Memory>;
  close(): Promise<void>;
}

async function startHost(dataDir: string): Promise<Host> {
  const child = fork(join(here, 'relay-host.ts'), [SECRET, dataDir], { execArgv: ['--expose-gc', '--import', 'tsx'], stdio: 'inherit' });
  const next = () => new Promise<Record<string, unknown>>((resolve) => child.once('message', (m) => resolve(m as Record<string, unknown>)));
  const ready = (await next()) as { relayUrl: string; forwardUrl: string };
  return {
    relayUrl: ready.relayUrl,
    forwardUrl: ready.forwardUrl,
    measure: async () => {
      const answer = next();
      child.send('measure');
      return (await answer) as unknown as Memory;
    },
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send('close');
      await exited;
    },
  };
}

const token = (rooms: string[], subject = 'bench') => issueToken({ secret: SECRET, subject, rooms, ttlSeconds: 3600 });

function record(random: () => number, i: number): Record<string, unknown> {
  const words = Array.from({ length: 18 }, () => Math.floor(random() * 1e6).toString(36)).join(' ');
  return { id: `01JBENCH${String(i).padStart(18, '0')}`, content: words, tags: ['bench'], importance: 0.5, createdAt: 1767225600000 + i };
}

function provider(url: string, room: string, authToken: string): { doc: Y.Doc; provider: WebsocketProvider } {
  const doc = new Y.Doc();
  const p = new WebsocketProvider(url, encodeURIComponent(room), doc, {
    WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
    params: { token: authToken },
    disableBc: true,
  });
  return { doc, provider: p };
}

const synced = (p: WebsocketProvider) => new Promise<void>((resolve) => (p.synced ? resolve() : p.once('sync', () => resolve())));

/** Write-to-visible latency between two providers through the relay. */
async function relayLatency(url: string, random: () => number): Promise<{ latency: Latency; payloadBytes: number }> {
  const room = `u=bench;s=latency-${Math.floor(random() * 1e9)}`;
  const authToken = await token([room]);
  const a = provider(url, room, authToken);
  const b = provider(url, room, authToken);
  await Promise.all([synced(a.provider), synced(b.provider)]);
  const samples: number[] = [];
  let waiting: ((key: string) => void) | undefined;
  b.doc.getMap('records').observe((event) => {
    for (const key of event.keysChanged) waiting?.(key);
  });
  let payloadBytes = 0;
  for (let i = 0; i < LATENCY.warmup + LATENCY.samples; i++) {
    const value = record(random, i);
    payloadBytes = JSON.stringify(value).length;
    const key = `r${i}`;
    const seen = new Promise<void>((resolve) => (waiting = (k) => k === key && resolve()));
    const start = performance.now();
    a.doc.getMap('records').set(key, value);
    await seen;
    if (i >= LATENCY.warmup) samples.push(performance.now() - start);
  }
  for (const side of [a, b]) {
    side.provider.destroy();
    side.doc.destroy();
  }
  return { latency: summarize(samples), payloadBytes };
}

/** The same round through a bare forwarder: raw websocket to raw websocket. */
async function floorLatency(url: string, payloadBytes: number): Promise<Latency> {
  const open = (u: string) => new Promise<WebSocket>((resolve, reject) => {
    const s = new WebSocket(u, { perMessageDeflate: false });
    s.once('open', () => resolve(s));
    s.once('error', reject);
  });
  const [a, b] = [await open(url), await open(url)];
  const payload = new Uint8Array(payloadBytes);
  const samples: number[] = [];
  for (let i = 0; i < LATENCY.warmup + LATENCY.samples; i++) {
    const seen = new Promise<void>((resolve) => b.once('message', () => resolve()));
    const start = performance.now();
    a.send(payload);
    await seen;
    if (i >= LATENCY.warmup) samples.push(performance.now() - start);
  }
  a.close();
  b.close();
  return summarize(samples);
}

function openSocket(url: string, room: string, authToken: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const s = new WebSocket(`${url}/${encodeURIComponent(room)}?token=${authToken}`, { perMessageDeflate: false });
    s.once('open', () => resolve(s));
    s.once('error', reject);
  });
}

/** Fills `rooms` with RECORDS_PER_DOC records each (one update per room), then closes them. */
async function populate(url: string, rooms: string[], random: () => number): Promise<number> {
  let bytes = 0;
  for (const room of rooms) {
    const doc = new Y.Doc();
    const map = doc.getMap('records');
    for (let i = 0; i < RECORDS_PER_DOC; i++) map.set(`r${i}`, record(random, i));
    const update = Y.encodeStateAsUpdate(doc);
    bytes += update.byteLength;
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, 0);
    encoding.writeVarUint(encoder, 2);
    encoding.writeVarUint8Array(encoder, update);
    const socket = await openSocket(url, room, await token([room]));
    socket.send(encoding.toUint8Array(encoder));
    // The relay handles a message synchronously (stored before the next one is read), so the
    // update is stored before the close that follows it on the same connection.
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.close();
    });
  }
  return Math.round(bytes / rooms.length);
}

/** Relay memory per open room: open one socket per room, measure, close them. */
async function memoryPerRoom(host: Host, rooms: string[]): Promise<{ heapPlusExternalBytes: number; rssBytes: number }> {
  const before = await host.measure();
  if (before.rooms !== 0) throw new Error(`expected no open rooms, found ${before.rooms}`);
  const sockets: WebSocket[] = [];
  for (const room of rooms) sockets.push(await openSocket(host.relayUrl, room, await token([room], `m-${room}`)));
  await new Promise((resolve) => setTimeout(resolve, 200));
  const after = await host.measure();
  if (after.rooms !== rooms.length) throw new Error(`expected ${rooms.length} open rooms, found ${after.rooms}`);
  await Promise.all(sockets.map((s) => new Promise((resolve) => (s.once('close', resolve), s.close()))));
  const per = (field: keyof Memory) => Math.round((after[field] - before[field]) / rooms.length);
  return { heapPlusExternalBytes: Math.round((after.heapUsed + after.external - before.heapUsed - before.external) / rooms.length), rssBytes: per('rss') };
}

interface Run {
  run: number;
  order: string;
  relay: Latency;
  floor: Latency;
  payloadJsonBytes: number;
  memory: {
    emptyDoc: { heapPlusExternalBytes: number; rssBytes: number };
    doc100: { heapPlusExternalBytes: number; rssBytes: number; storedBytes: number };
  };
  loadAverage: number[];
}

async function oneRun(run: number): Promise<Run> {
  const dataDir = mkdtempSync(join(tmpdir(), 'zeromem-relay-bench-'));
  const random = prng(run * 7919);
  const host = await startHost(dataDir);
  const loadBefore = loadavg()[0]!;
  try {
    const relayFirst = run % 2 === 1;
    let relay: { latency: Latency; payloadBytes: number } | undefined;
    let floor: Latency | undefined;
    if (relayFirst) relay = await relayLatency(host.relayUrl, random);
    floor = await floorLatency(host.forwardUrl, relay?.payloadBytes ?? 250);
    if (!relayFirst) relay = await relayLatency(host.relayUrl, random);
    log(`run ${run}: latency done`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const emptyRooms = Array.from({ length: MEMORY_ROOMS }, (_, i) => `u=bench;s=empty-${i}`);
    const emptyDoc = await memoryPerRoom(host, emptyRooms);
    const fullRooms = Array.from({ length: MEMORY_ROOMS }, (_, i) => `u=bench;s=full-${i}`);
    const storedBytes = await populate(host.relayUrl, fullRooms, random);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const doc100 = { ...(await memoryPerRoom(host, fullRooms)), storedBytes };
    log(`run ${run}: memory done`);
    return {
      run,
      order: relayFirst ? 'relay first' : 'floor first',
      relay: relay!.latency,
      floor,
      payloadJsonBytes: relay!.payloadBytes,
      memory: { emptyDoc, doc100 },
      loadAverage: [Math.round(loadBefore * 100) / 100, Math.round(loadavg()[0]! * 100) / 100],
    };
  } finally {
    await host.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const runs: Run[] = [];
for (let run = 1; run <= RUNS; run++) runs.push(await oneRun(run));
const med = medianOf(runs);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const table = markdownTable<Run, Run>(
  [
    ['relay write-to-visible p50 (ms)', (r) => r.relay.p50],
    ['relay write-to-visible p95 (ms)', (r) => r.relay.p95],
    ['relay write-to-visible p99 (ms)', (r) => r.relay.p99],
    ['bare forwarder p50 (ms)', (r) => r.floor.p50],
    ['bare forwarder p95 (ms)', (r) => r.floor.p95],
    ['relay / forwarder p50', (r) => Math.round((r.relay.p50 / r.floor.p50) * 10) / 10],
    ['relay memory per open empty doc (heap+external)', (r) => kb(r.memory.emptyDoc.heapPlusExternalBytes)],
    ['relay memory per open doc of 100 records (heap+external)', (r) => kb(r.memory.doc100.heapPlusExternalBytes)],
    ['  its stored size', (r) => kb(r.memory.doc100.storedBytes)],
    ['relay RSS per open doc of 100 records', (r) => kb(r.memory.doc100.rssBytes)],
    ['load average before / after', (r) => (r.loadAverage ? r.loadAverage.join(' / ') : '')],
  ],
  med,
  runs,
);
console.log(table);

const result = {
  benchmark: 'relay-speed',
  at: new Date().toISOString(),
  config: { latency: LATENCY, memoryRooms: MEMORY_ROOMS, recordsPerDoc: RECORDS_PER_DOC, runs: RUNS },
  environment: { node: process.version, os: `${platform()} ${release()}`, cpus: cpus().length, cpuModel: cpus()[0]?.model },
  median: med,
  runs,
};
writeWithHistory(outFile, result);
log(`wrote ${outFile}`);
