/**
 * Where sync's time goes (issue 32's sync aims): a CPU profile of one path of sync-ab.ts
 * (same relay, records and replicas, SQLite files), summed by function and by file.
 *
 *   node --conditions=development --import tsx test/bench/sync-profile.ts [initial|apply|visible|raw] [--records 10000] [--samples 100] [--out x.cpuprofile]
 *
 * - `initial`: from opening a fresh replica to its `synced` (N memories to apply).
 * - `apply`: core's part of it alone, `replicaOf(memory).apply` of the N records' states
 *   into a fresh memory, as sync calls it (with a document update to log).
 * - `visible`: `--samples` writes, each `remember()` on one replica until the other's `get()` finds it.
 * - `raw`: raw Yjs's initial sync of N map entries through the same relay, for comparison.
 * Shares are counted in samples (each the same slice of this process's CPU), not in the
 * samples' wall-time deltas: on a loaded machine a descheduled moment lands on whatever
 * ran last. Prints the process's CPU time over the path too.
 */
import { Session } from 'node:inspector/promises';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { namespaceKey, openMemory, type Memory, type Namespace } from '@zeromem/core';
import { replicaOf, replicatedState, type ReplicatedChange } from '@zeromem/core/internal';
import { issueToken, startRelay } from '@zeromem/relay';
import { shareNamespace } from '@zeromem/sync';
import { mulberry32 as prng } from '../kit/mulberry32.ts';

const { values: args, positionals } = parseArgs({ allowPositionals: true, options: { records: { type: 'string', default: '10000' }, samples: { type: 'string', default: '100' }, out: { type: 'string' } } });
const path = positionals[0] ?? 'initial';
if (!['initial', 'apply', 'visible', 'raw'].includes(path)) throw new Error('usage: sync-profile.ts [initial|apply|visible|raw] [--records N] [--samples N] [--out file]');
const N = Number(args.records);
const SECRET = 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
const NS = { userId: 'bench-user', scope: path };
const WORDS = 'customer order refund blender motor loud phone email prefers morning delivery invoice warranty store paris berlin coffee tea'.split(' ');
const random = prng(42);
const content = (i: number) => `Memory ${i}: ${Array.from({ length: 28 }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' ')}.`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dataDir = mkdtempSync(join(tmpdir(), 'zeromem-sync-profile-'));
const limits = { maxDocumentBytes: 2 ** 30, maxCpuMsPerSecond: 1000, maxConnectionsPerSubject: 1000, maxMessagesPerSecond: 1_000_000, maxBytesPerSecond: 2 ** 34 };
const relay = await startRelay({ secret: SECRET, dataDir, logLevel: 'silent', port: 0, ...limits });
const token = await issueToken({ secret: SECRET, subject: 'bench', rooms: [namespaceKey(NS)], ttlSeconds: 3600 });
const open = (name: string) => openMemory({ name, directory: mkdtempSync(join(dataDir, `${name}-`)) });
const share = (memory: Memory, ns: Namespace) => shareNamespace(memory, ns, { url: relay.url, token, WebSocketPolyfill: WebSocket });

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 200 });
let cpu = process.cpuUsage();
const start = async () => {
  await session.post('Profiler.start');
  cpu = process.cpuUsage();
};
if (path === 'raw') {
  const client = () => {
    const doc = new Y.Doc();
    const provider = new WebsocketProvider(relay.url, encodeURIComponent(namespaceKey(NS)), doc, { WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket, params: { token }, disableBc: true });
    return { doc, map: doc.getMap<unknown>('records'), provider, synced: new Promise<void>((r) => provider.once('sync', () => r())) };
  };
  const a = client();
  await a.synced;
  a.doc.transact(() => {
    for (let i = 0; i < N; i++) a.map.set(`raw-${i}`, { content: content(i), tags: [WORDS[i % WORDS.length]!, 'bench'], metadata: { ticket: i, channel: 'chat' }, importance: 0.5, createdAt: 1767225600000 + i, updatedAt: 1767225600000 + i, layer: 'long_term', v: 1 });
  });
  const probe = client(); // the relay holds it all once a fresh client receives all of it
  await probe.synced;
  while (probe.map.size < N) await sleep(20);
  await start();
  const b = client();
  await b.synced;
  while (b.map.size < N) await sleep(1);
} else if (path === 'initial' || path === 'apply') {
  const a = await open('a');
  await a.rememberMany(Array.from({ length: N }, (_, i) => ({ namespace: NS, content: content(i), tags: [WORDS[i % WORDS.length]!, 'bench'], metadata: { ticket: i, channel: 'chat' }, importance: 0.5 })));
  if (path === 'apply') {
    const changes: ReplicatedChange[] = [];
    for (let cursor: string | undefined, first = true; first || cursor; first = false) {
      const page = await a.list(NS, { limit: 1000, ...(cursor ? { cursor } : {}) });
      changes.push(...page.items.map((record) => ({ put: replicatedState(record) })));
      cursor = page.nextCursor ?? undefined;
    }
    const b = await open('b');
    await start();
    const result = await replicaOf(b).apply(NS, changes, { after: 0, actor: 'sync', docLog: { room: namespaceKey(NS), updates: [new Uint8Array(1024)] } });
    if (result.written.length !== N) throw new Error('the apply did not write every memory');
  } else {
    const aShare = await share(a, NS);
    await aShare.synced;
    await aShare.flush();
    await sleep(1000);
    await start();
    const b = await open('b');
    await (await share(b, NS)).synced;
    if ((await b.count(NS)) !== N) throw new Error('the fresh replica does not hold every memory');
  }
} else {
  const [writer, reader] = [await open('w'), await open('r')];
  const shares = [await share(writer, NS), await share(reader, NS)];
  await Promise.all(shares.map((s) => s.synced));
  await start();
  for (let i = 0; i < Number(args.samples); i++) {
    await sleep(random() * 60);
    const { id } = await writer.remember({ namespace: NS, content: `latency probe ${i}` });
    while (!(await reader.get(NS, id))) await sleep(1);
  }
}
const used = process.cpuUsage(cpu);
const { profile } = await session.post('Profiler.stop');
if (args.out) writeFileSync(args.out, JSON.stringify(profile));
console.log(`${path}, ${path === 'visible' ? `${args.samples} writes` : `${N} records`}: CPU ${((used.user + used.system) / 1000).toFixed(0)} ms (user + system, every thread)`);
summarize(profile);
await relay.close().catch(() => undefined);
rmSync(dataDir, { recursive: true, force: true });
process.exit(0); // providers' reconnect timers

/** Prints the largest shares of samples by function (self) and by file. */
function summarize(profile: { nodes: Array<{ id: number; callFrame: { functionName: string; url: string } }>; samples?: number[] }): void {
  const hits = new Map<number, number>();
  for (const id of profile.samples ?? []) hits.set(id, (hits.get(id) ?? 0) + 1);
  const total = profile.samples?.length ?? 0;
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const node of profile.nodes) {
    const n = hits.get(node.id) ?? 0;
    if (!n) continue;
    const file = node.callFrame.url.replace(/^file:\/\/.*?\/(node_modules\/\.pnpm\/[^/]+\/node_modules\/|packages\/)/, '').replace(/^file:\/\//, '') || '(native)';
    const fn = `${node.callFrame.functionName || '(anonymous)'}  ${file}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + n);
    byFile.set(file, (byFile.get(file) ?? 0) + n);
  }
  const show = (title: string, map: Map<string, number>, top: number) => {
    console.log(`\n| ${title} | share of samples |\n|---|---|`);
    for (const [key, n] of [...map].sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`| ${key} | ${((100 * n) / total).toFixed(1)}% |`);
  };
  show('self time by function', byFunction, 25);
  show('self time by file', byFile, 15);
}
