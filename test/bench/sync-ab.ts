/**
 * Sync against raw Yjs + y-websocket, and this checkout's `@zeromem/sync` against another
 * checkout's (issue 32's sync aims), taking turns in one run so both see the same load.
 *
 *   node --conditions=development --import tsx test/bench/sync-ab.ts <other checkout root> [--rounds 4] [--records 10000] [--samples 150] [--engine disk|fake] [--durability default|relaxed]
 *
 * Each round runs one child process per checkout (alternating who goes first). A child
 * starts the relay (this checkout's `startRelay`, SQLite on a temporary directory, in the
 * child) and measures, against it, over loopback with the standard y-websocket provider:
 * - raw: two plain `Y.Doc`s. Initial sync: doc A holds N record-like map entries (the same
 *   contents, tags and metadata as below) and is in the relay; a fresh doc B connects, timed
 *   until its provider is synced and its map holds N. Write-to-visible: A sets one entry at
 *   a random moment, timed until B's map observer sees it.
 * - zeromem (the child's checkout's core and sync, no embedder; `--engine disk`, the
 *   default: each replica one SQLite file in a temporary directory, as `zeromem serve
 *   --share` runs, with `--durability` (`relaxed`: a `remember()` is acknowledged without a
 *   sync of the file, as raw Yjs's `map.set` is with none); `fake`: fake-indexeddb in
 *   memory, as test/bench/sync-speed.ts): initial
 *   sync: replica A holds N memories and has shared them; a fresh replica B calls
 *   `shareNamespace()`, timed until `synced` resolved (all N in its store, checked).
 *   Write-to-visible: A `remember()`s at a random moment, B polls `get()` every 1 ms
 *   (default `pollMs`).
 * Prints a Markdown table of medians over rounds and every round's figures, with each
 * ratio to raw taken within its child; the initial syncs also as the child's CPU time
 * (`process.cpuUsage`, every thread), which other processes' load does not stretch. The
 * other checkout needs the same dependencies (e.g. `git archive` of main whose
 * node_modules link to this one's). Timing is never a pass/fail test.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { issueToken, startRelay } from '@zeromem/relay';
import { median, summarize } from './stats.ts';
import { mulberry32 as prng } from '../kit/mulberry32.ts';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    child: { type: 'string' },
    rounds: { type: 'string', default: '4' },
    records: { type: 'string', default: '10000' },
    samples: { type: 'string', default: '150' },
    engine: { type: 'string', default: 'disk' },
    durability: { type: 'string', default: 'default' },
  },
});
const N = Number(args.records);
const SAMPLES = Number(args.samples);
const here = resolve(import.meta.dirname, '../..');

interface ChildResult {
  rawInitialMs: number;
  /** CPU time of the child process (every thread: user + system) over the same span: what the load of other processes does not change. */
  rawInitialCpuMs: number;
  rawP50: number;
  rawP95: number;
  initialMs: number;
  initialCpuMs: number;
  p50: number;
  p95: number;
}

if (args.child) {
  console.log(JSON.stringify(await child(resolve(args.child))));
  process.exit(0); // a closed provider's reconnect timer may outlive it
} else await drive();

async function drive(): Promise<void> {
  const other = positionals[0];
  if (!other) throw new Error('usage: sync-ab.ts <other checkout root> [--rounds 4] [--records 10000] [--samples 150]');
  const roots = { base: resolve(other), branch: here };
  const rows: Array<{ round: number; who: 'base' | 'branch'; load: number; result: ChildResult }> = [];
  for (let round = 1; round <= Number(args.rounds); round++) {
    const order = round % 2 ? (['base', 'branch'] as const) : (['branch', 'base'] as const);
    for (const who of order) {
      const load = loadavg()[0]!;
      const result = await runChild(roots[who]);
      rows.push({ round, who, load, result });
      console.error(`round ${round} ${who} (load ${load.toFixed(1)}): ${JSON.stringify(result)}`);
    }
  }
  const fmt = (x: number) => (x >= 100 ? Math.round(x).toString() : x.toFixed(2));
  const col = (who: 'base' | 'branch', f: (r: ChildResult) => number) => rows.filter((r) => r.who === who).map((r) => f(r.result));
  const line = (label: string, f: (r: ChildResult) => number) =>
    `| ${label} | ${fmt(median(col('base', f)))} (${col('base', f).map(fmt).join(', ')}) | ${fmt(median(col('branch', f)))} (${col('branch', f).map(fmt).join(', ')}) |`;
  console.log(`| measurement | base: median (rounds) | branch: median (rounds) |
|---|---|---|
${line(`raw Yjs: initial sync of ${N} (ms)`, (r) => r.rawInitialMs)}
${line(`zeromem: initial sync of ${N} (ms)`, (r) => r.initialMs)}
${line('zeromem / raw, initial sync', (r) => r.initialMs / r.rawInitialMs)}
${line(`raw Yjs: CPU time of the initial sync of ${N} (ms)`, (r) => r.rawInitialCpuMs)}
${line(`zeromem: CPU time of the initial sync of ${N} (ms)`, (r) => r.initialCpuMs)}
${line('zeromem / raw, initial sync CPU time', (r) => r.initialCpuMs / r.rawInitialCpuMs)}
${line('raw Yjs: write-to-visible p50 (ms)', (r) => r.rawP50)}
${line('zeromem: write-to-visible p50 (ms)', (r) => r.p50)}
${line('zeromem / raw, write-to-visible p50', (r) => r.p50 / r.rawP50)}
${line('zeromem: write-to-visible p95 (ms)', (r) => r.p95)}
load average (1 min) before each child: ${rows.map((r) => `${r.who} ${r.load.toFixed(1)}`).join(', ')}`);
}

function runChild(root: string): Promise<ChildResult> {
  const argv = ['--conditions=development', '--import', 'tsx', fileURLToPath(import.meta.url), '--child', root, '--records', String(N), '--samples', String(SAMPLES), '--engine', args.engine!, '--durability', args.durability!];
  return new Promise((done, fail) => {
    const proc = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    proc.on('exit', (code) => (code === 0 ? done(JSON.parse(out.trim().split('\n').at(-1)!) as ChildResult) : fail(new Error(`child for ${root} exited with ${code}`))));
  });
}

async function child(root: string): Promise<ChildResult> {
  type Core = typeof import('@zeromem/core');
  type Sync = typeof import('@zeromem/sync');
  const core = (await import(pathToFileURL(join(root, 'packages/core/src/index.node.ts')).href)) as Core;
  const sync = (await import(pathToFileURL(join(root, 'packages/sync/src/index.ts')).href)) as Sync;
  const { IDBFactory, IDBKeyRange } = await import('fake-indexeddb');
  const SECRET = 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
  const NS = { userId: 'bench-user', scope: 'shared' };
  const RAW = { userId: 'bench-user', scope: 'raw' };
  const LATENCY = { userId: 'bench-user', scope: 'latency' };
  const rooms = [NS, RAW, LATENCY].map((ns) => core.namespaceKey(ns));
  const WORDS = 'customer order refund blender motor loud phone email prefers morning delivery invoice warranty store paris berlin coffee tea'.split(' ');
  const random = prng(42);
  const content = (i: number) => `Memory ${i}: ${Array.from({ length: 28 }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' ')}.`;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const dataDir = mkdtempSync(join(tmpdir(), 'zeromem-sync-ab-'));
  // One token subject opens every socket here: the relay's per-subject fairness limits (CPU time, sockets, rates) would throttle the benchmark, not a user.
  const limits = { maxDocumentBytes: 2 ** 30, maxCpuMsPerSecond: 1000, maxConnectionsPerSubject: 1000, maxMessagesPerSecond: 1_000_000, maxBytesPerSecond: 2 ** 34 };
  const relay = await startRelay({ secret: SECRET, dataDir, logLevel: 'silent', port: 0, ...limits });
  const token = await issueToken({ secret: SECRET, subject: 'bench', rooms, ttlSeconds: 3600 });

  // --- raw Yjs + y-websocket
  const provider = (room: string) => {
    const doc = new Y.Doc();
    const p = new WebsocketProvider(relay.url, encodeURIComponent(room), doc, { WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket, params: { token }, disableBc: true });
    return { doc, map: doc.getMap<unknown>('records'), provider: p };
  };
  const synced = (p: WebsocketProvider) => new Promise<void>((r) => (p.synced ? r() : p.once('sync', () => r())));
  /** Waits until a fresh client of `room` receives all N records from the relay (what was sent is stored and loaded), so the timed replica does not wait for the relay's backlog. */
  const settled = async (room: string) => {
    const probe = provider(room);
    await synced(probe.provider);
    while (probe.map.size < N) await sleep(20);
    probe.provider.destroy();
  };
  const rawA = provider(rooms[1]!);
  await synced(rawA.provider);
  for (let start = 0; start < N; start += 1000) {
    rawA.doc.transact(() => {
      for (let i = start; i < Math.min(N, start + 1000); i++) {
        rawA.map.set(`raw-${i}`, { content: content(i), tags: [WORDS[i % WORDS.length]!, 'bench'], metadata: { ticket: i, channel: 'chat' }, importance: 0.5, createdAt: 1767225600000 + i, updatedAt: 1767225600000 + i, layer: 'long_term', v: 1 });
      }
    });
  }
  await settled(rooms[1]!); // the relay has it all
  const cpuMs = (since: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1000;
  };
  let t = performance.now();
  let cpu = process.cpuUsage();
  const rawB = provider(rooms[1]!);
  await synced(rawB.provider);
  while (rawB.map.size < N) await sleep(1);
  const rawInitialMs = performance.now() - t;
  const rawInitialCpuMs = cpuMs(cpu);
  const rawSamples: number[] = [];
  for (let i = 0; i < SAMPLES + 20; i++) {
    await sleep(random() * 60);
    const key = `probe-${i}`;
    const seen = new Promise<void>((r) => {
      const observer = (event: Y.YMapEvent<unknown>) => {
        if (!event.keysChanged.has(key)) return;
        rawB.map.unobserve(observer);
        r();
      };
      rawB.map.observe(observer);
    });
    const start = performance.now();
    rawA.map.set(key, { content: `latency probe ${i}`, tags: [], metadata: {}, importance: 0.5, createdAt: Date.now(), updatedAt: Date.now(), layer: 'long_term', v: 1 });
    await seen;
    if (i >= 20) rawSamples.push(performance.now() - start);
  }
  for (const r of [rawA, rawB]) r.provider.destroy();
  const raw = summarize(rawSamples);

  // --- zeromem
  const open = (name: string) =>
    args.engine === 'fake' ? core.openMemory({ indexedDB: new IDBFactory(), IDBKeyRange, name, indexSnapshots: false }) : core.openMemory({ name, directory: mkdtempSync(join(dataDir, `${name}-`)), durability: args.durability as 'default' | 'relaxed' });
  const share = (memory: Awaited<ReturnType<typeof open>>, ns: typeof NS) => sync.shareNamespace(memory, ns, { url: relay.url, token, WebSocketPolyfill: WebSocket });
  const a = await open('a');
  await a.rememberMany(Array.from({ length: N }, (_, i) => ({ namespace: NS, content: content(i), tags: [WORDS[i % WORDS.length]!, 'bench'], metadata: { ticket: i, channel: 'chat' }, importance: 0.5 })));
  const aShare = await share(a, NS);
  await aShare.synced;
  await aShare.flush();
  await settled(rooms[0]!);
  t = performance.now();
  cpu = process.cpuUsage();
  const b = await open('b');
  const bShare = await share(b, NS);
  await bShare.synced;
  const initialMs = performance.now() - t;
  const initialCpuMs = cpuMs(cpu);
  const count = await b.count(NS);
  if (count !== N) throw new Error(`replica B holds ${count} memories, expected ${N}`);
  await Promise.all([aShare.close(), bShare.close()]);
  await Promise.all([a.close(), b.close()]);

  const writer = await open('w');
  const reader = await open('r');
  const wShare = await share(writer, LATENCY);
  const rShare = await share(reader, LATENCY);
  await Promise.all([wShare.synced, rShare.synced]);
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES + 20; i++) {
    await sleep(random() * 60); // at random moments, not in step with the audit-log poll
    const start = performance.now();
    const { id } = await writer.remember({ namespace: LATENCY, content: `latency probe ${i}` });
    while (!(await reader.get(LATENCY, id))) await sleep(1);
    if (i >= 20) samples.push(performance.now() - start);
  }
  await Promise.all([wShare.close(), rShare.close()]);
  await Promise.all([writer.close(), reader.close()]);
  await relay.close();
  rmSync(dataDir, { recursive: true, force: true });
  const ours = summarize(samples);
  return { rawInitialMs, rawInitialCpuMs, rawP50: raw.p50, rawP95: raw.p95, initialMs, initialCpuMs, p50: ours.p50, p95: ours.p95 };
}
