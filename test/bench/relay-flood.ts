/**
 * Relay flood benchmark (issue 10, item 3): what one flooding socket does to a
 * well-behaved client of the same room and to `/healthz`, with and without the relay's
 * per-socket rate limits and group commit.
 *
 *   npx tsx test/bench/relay-flood.ts [--runs 3] [--seconds 8]
 *
 * The relay runs in a child process (relay-host.ts), the flooder in another
 * (relay-flooder.ts: raw websockets, a read-write token of its own, reconnecting 100 ms
 * after every close), the well-behaved clients in this one (two standard y-websocket
 * providers). Per configuration and run:
 * - round trip: client A sets one map entry every 200 ms (after the previous one arrived),
 *   timed until client B's observer sees it; one that takes over 10 s counts as a timeout;
 * - `/healthz`: fetched every 500 ms, 5 s timeout;
 * - the relay's stored updates and durable writes (fsyncs) per second from the flood's
 *   start to the end of its drain (its `stats()` counters, asked over IPC once it is idle);
 * - drain: after the flood stops, the time until one more write of A reaches B.
 * Configurations: `before` = rate limits off and one fsync per update (what the relay did
 * before issue 10), `group commit` = rate limits off, group commit on, `defaults` = the
 * shipped defaults (rate limits and group commit). Floods: 8,000 small updates/s, and
 * 30,000 awareness updates/s (before and defaults only).
 *
 * Prints a Markdown table per flood; writes JSON to test/bench/results/relay-flood.json.
 * Timing is never a pass/fail test.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { issueToken } from '@zeromem/relay';
import { type Latency, markdownTable, medianOf, summarize } from './stats.ts';

const here = dirname(fileURLToPath(import.meta.url));
const outFile = join(here, 'results', 'relay-flood.json');
const SECRET = 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
const ROOM = 'u=bench;s=flood';
const ROUND_TRIP_TIMEOUT_MS = 10_000;
const HEALTH_TIMEOUT_MS = 5_000;

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, seconds: { type: 'string', default: '8' }, only: { type: 'string' } } });
const RUNS = Number(values.runs);
const FLOOD_MS = Number(values.seconds) * 1000;
const log = (message: string) => process.stderr.write(`${message}\n`);

const OFF = { maxMessagesPerSecond: 1_000_000_000, maxBytesPerSecond: 2 ** 40 };
const CONFIGS = {
  before: { ...OFF, maxUpdatesPerCommit: 1 },
  'group commit': { ...OFF },
  defaults: {},
} as const;
type ConfigName = keyof typeof CONFIGS;
const FLOODS = [
  { kind: 'update', rate: 8000, configs: ['before', 'group commit', 'defaults'] as ConfigName[] },
  { kind: 'awareness', rate: 30_000, configs: ['before', 'defaults'] as ConfigName[] },
] as const;

const token = (subject: string) => issueToken({ secret: SECRET, subject, rooms: [ROOM], ttlSeconds: 3600 });

function startChild(script: string, args: string[]): { child: ChildProcess; next: () => Promise<Record<string, unknown>> } {
  const child = fork(join(here, script), args, { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const next = () => new Promise<Record<string, unknown>>((resolve) => child.once('message', (m) => resolve(m as Record<string, unknown>)));
  return { child, next };
}

function provider(url: string, authToken: string): { doc: Y.Doc; provider: WebsocketProvider } {
  const doc = new Y.Doc();
  const p = new WebsocketProvider(url, encodeURIComponent(ROOM), doc, {
    WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
    params: { token: authToken },
    disableBc: true,
  });
  return { doc, provider: p };
}

const synced = (p: WebsocketProvider) => new Promise<void>((resolve) => (p.synced ? resolve() : p.once('sync', () => resolve())));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds until `/healthz` answered, {@link HEALTH_TIMEOUT_MS} if it did not. */
async function health(port: number): Promise<number> {
  const start = performance.now();
  try {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
    await response.json();
    return performance.now() - start;
  } catch {
    return HEALTH_TIMEOUT_MS;
  }
}

interface Result {
  run: number;
  order: string;
  roundTrip: Latency;
  roundTripTimeouts: number;
  health: Latency;
  healthTimeouts: number;
  storedUpdatesPerSecond: number;
  durableWritesPerSecond: number;
  updatesPerDurableWrite: number;
  floodSentPerSecond: number;
  floodCloses: string;
  drainMs: number;
}

async function oneCase(config: ConfigName, flood: (typeof FLOODS)[number], run: number): Promise<Result> {
  const dataDir = mkdtempSync(join(tmpdir(), 'zeromem-relay-flood-'));
  const host = startChild('relay-host.ts', [SECRET, dataDir, JSON.stringify(CONFIGS[config])]);
  const ready = (await host.next()) as { relayUrl: string };
  const url = ready.relayUrl;
  const port = Number(new URL(url).port);
  const rw = await token('victim');
  const a = provider(url, rw);
  const b = provider(url, rw);
  await Promise.all([synced(a.provider), synced(b.provider)]);
  const seen = new Map<string, () => void>();
  b.doc.getMap('records').observe((event) => {
    for (const key of event.keysChanged) seen.get(key)?.();
  });
  let writes = 0;
  const roundTrip = async (): Promise<number> => {
    const key = `w${writes++}`;
    const arrived = new Promise<void>((resolve) => seen.set(key, resolve));
    const start = performance.now();
    a.doc.getMap('records').set(key, { content: 'a well-behaved write', at: Date.now() });
    const timedOut = await Promise.race([arrived.then(() => false), sleep(ROUND_TRIP_TIMEOUT_MS).then(() => true)]);
    return timedOut ? Number.POSITIVE_INFINITY : performance.now() - start;
  };
  // Warm up the path before the flood.
  for (let i = 0; i < 5; i++) await roundTrip();

  const flooder = startChild('relay-flooder.ts', [url, ROOM, await token('flooder'), flood.kind, String(flood.rate)]);
  await flooder.next();
  log('  flooding');
  const counters = async () => {
    const answer = host.next();
    host.child.send('measure');
    return (await answer) as { storedUpdates: number; durableWrites: number };
  };
  const first = await counters();
  const floodStart = performance.now();
  const trips: number[] = [];
  const checks: number[] = [];
  const deadline = floodStart + FLOOD_MS;
  const healthLoop = (async () => {
    while (performance.now() < deadline) {
      checks.push(await health(port));
      await sleep(500);
    }
  })();
  while (performance.now() < deadline) {
    trips.push(await roundTrip());
    await sleep(200);
  }
  await healthLoop;
  log('  flood over');
  const answer = flooder.next();
  flooder.child.send('stop');
  const report = (await answer) as { sent: number; closes: Record<string, number> };
  const floodSeconds = (performance.now() - floodStart) / 1000;
  const drainStart = performance.now();
  const drain = await (async () => {
    const key = `drain${writes++}`;
    const arrived = new Promise<void>((resolve) => seen.set(key, resolve));
    a.doc.getMap('records').set(key, 'after the flood');
    const done = await Promise.race([arrived.then(() => true), sleep(120_000).then(() => false)]);
    return done ? performance.now() - drainStart : Number.POSITIVE_INFINITY;
  })();
  // Read once the relay is idle again: while flooded it may not answer for a long time.
  const last = await counters();
  const busySeconds = (performance.now() - floodStart) / 1000;
  for (const side of [a, b]) {
    side.provider.destroy();
    side.doc.destroy();
  }
  const exited = new Promise((resolve) => host.child.once('exit', resolve));
  host.child.send('close');
  await exited;
  rmSync(dataDir, { recursive: true, force: true });

  const finite = (xs: number[]) => xs.filter(Number.isFinite);
  const stored = last.storedUpdates - first.storedUpdates;
  const durable = last.durableWrites - first.durableWrites;
  const closes = Object.entries(report.closes)
    .map(([code, n]) => `${n}x ${code}`)
    .join(', ');
  return {
    run,
    order: `load ${loadavg()[0]!.toFixed(1)}`,
    roundTrip: summarize(finite(trips).length ? finite(trips) : [ROUND_TRIP_TIMEOUT_MS]),
    roundTripTimeouts: trips.length - finite(trips).length,
    health: summarize(checks),
    healthTimeouts: checks.filter((ms) => ms >= HEALTH_TIMEOUT_MS).length,
    storedUpdatesPerSecond: Math.round(stored / busySeconds),
    durableWritesPerSecond: Math.round(durable / busySeconds),
    updatesPerDurableWrite: durable > 0 ? Math.round((stored / durable) * 10) / 10 : 0,
    floodSentPerSecond: Math.round(report.sent / floodSeconds),
    floodCloses: closes || 'none',
    drainMs: Math.round(drain),
  };
}

const results: Record<string, Result[]> = {};
for (let run = 1; run <= RUNS; run++) {
  for (const flood of FLOODS) {
    for (const config of flood.configs) {
      if (values.only !== undefined && values.only !== config) continue;
      const name = `${flood.kind} flood, ${config}`;
      log(`run ${run}: ${name}`);
      (results[name] ??= []).push(await oneCase(config, flood, run));
    }
  }
}

const tables: string[] = [];
for (const [name, runs] of Object.entries(results)) {
  const med = medianOf(runs);
  const table = markdownTable<Result, Result>(
    [
      ['well-behaved round trip p50 (ms)', (r) => r.roundTrip.p50],
      ['well-behaved round trip p95 (ms)', (r) => r.roundTrip.p95],
      ['well-behaved round trip max (ms)', (r) => r.roundTrip.max],
      [`round trips over ${ROUND_TRIP_TIMEOUT_MS / 1000} s (timeouts)`, (r) => r.roundTripTimeouts],
      ['/healthz p50 (ms)', (r) => r.health.p50],
      ['/healthz max (ms)', (r) => r.health.max],
      [`/healthz over ${HEALTH_TIMEOUT_MS / 1000} s (timeouts)`, (r) => r.healthTimeouts],
      ['flood messages sent per s', (r) => r.floodSentPerSecond],
      ['updates stored per s (flood + drain)', (r) => r.storedUpdatesPerSecond],
      ['durable writes (fsyncs) per s (flood + drain)', (r) => r.durableWritesPerSecond],
      ['updates per durable write', (r) => r.updatesPerDurableWrite],
      ['flooder closed by the relay', (r) => r.floodCloses],
      ['drain: next write after the flood (ms)', (r) => r.drainMs],
    ],
    med,
    runs,
  );
  tables.push(`### ${name}\n\n${table}`);
}
console.log(tables.join('\n\n'));

mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(
  outFile,
  `${JSON.stringify(
    {
      benchmark: 'relay-flood',
      at: new Date().toISOString(),
      config: { runs: RUNS, floodMs: FLOOD_MS, configs: CONFIGS, floods: FLOODS },
      environment: { node: process.version, os: `${platform()} ${release()}`, cpus: cpus().length, cpuModel: cpus()[0]?.model },
      results,
    },
    null,
    2,
  )}\n`,
);
log(`wrote ${outFile}`);
