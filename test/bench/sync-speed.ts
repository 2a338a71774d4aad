/**
 * Sync benchmark (issue: sync, item 6, the client's part), `@zeromem/sync` end to end:
 * memories in a fake-indexeddb store on one replica, the standard y-websocket provider,
 * the relay (in this process, SQLite on a temporary directory), another replica's store.
 *
 *   npx tsx test/bench/sync-speed.ts [--records 10000] [--samples 200] [--append]
 *
 * - initial sync: replica A holds N memories (~180-byte contents, 2 tags, metadata) and
 *   shares the namespace (its audit log is turned into one Yjs update per 1,000 records);
 *   then a fresh replica B shares it: the time from `shareNamespace()` until `synced`
 *   resolved, i.e. all N records are in B's store (no embedder: embedding excluded).
 * - bytes sent per memory: what A's websocket sent while sharing the N memories, and
 *   while writing memories one at a time, divided by the count, against the JSON size of the
 *   record as `get()` returns it; and one at a time with end-to-end encryption.
 * - write-to-visible: A `remember()`s at a random moment, B polls `get()` every 2 ms; sequential samples, with
 *   the default audit-log poll of 50 ms and with 10 ms.
 *
 * Prints a Markdown table and writes test/bench/results/sync-speed.json (with --append, the
 * run is added to the runs already there). Timing is never a
 * pass/fail test.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import WebSocket from 'ws';
import { namespaceKey, openMemory, type Memory, type RememberInput } from '@zeromem/core';
import { issueToken, startRelay } from '@zeromem/relay';
import { generateNamespaceKey, shareNamespace, type SharedNamespace } from '@zeromem/sync';
import { summarize } from './stats.ts';
import { mulberry32 as prng } from '../kit/mulberry32.ts';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: { records: { type: 'string', default: '10000' }, samples: { type: 'string', default: '200' }, append: { type: 'boolean', default: false } },
});
const N = Number(args.records);
const SAMPLES = Number(args.samples);
const SECRET = 'bench-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
const NS = { userId: 'bench-user', scope: 'shared' };
const ROOM = namespaceKey(NS);
const WORDS = 'customer order refund blender motor loud phone email prefers morning delivery invoice warranty store paris berlin coffee tea'.split(' ');

const dataDir = mkdtempSync(join(tmpdir(), 'zeromem-sync-bench-'));
const relay = await startRelay({ secret: SECRET, dataDir, logLevel: 'silent', port: 0, maxDocumentBytes: 2 ** 30 });
const token = await issueToken({ secret: SECRET, subject: 'bench', rooms: [ROOM], ttlSeconds: 3600 });
const random = prng(42);

function counting(): { WebSocketPolyfill: unknown; bytes: { sent: number } } {
  const bytes = { sent: 0 };
  class Counting extends WebSocket {
    override send(data: Uint8Array, ...rest: unknown[]): void {
      bytes.sent += data.byteLength;
      (super.send as (...a: unknown[]) => void)(data, ...rest);
    }
  }
  return { WebSocketPolyfill: Counting, bytes };
}

function input(i: number): RememberInput {
  const words = Array.from({ length: 28 }, () => WORDS[Math.floor(random() * WORDS.length)]!);
  return { namespace: NS, content: `Memory ${i}: ${words.join(' ')}.`, tags: [WORDS[i % WORDS.length]!, 'bench'], metadata: { ticket: i, channel: 'chat' }, importance: 0.5 };
}

async function replica(name: string, socket = counting(), pollMs?: number): Promise<{ memory: Memory; share: SharedNamespace; bytes: { sent: number } }> {
  const factory = new IDBFactory();
  const memory = await openMemory({ indexedDB: factory, IDBKeyRange, name, indexSnapshots: false });
  const share = await shareNamespace(memory, NS, { url: relay.url, token, WebSocketPolyfill: socket.WebSocketPolyfill, ...(pollMs ? { pollMs } : {}) });
  return { memory, share, bytes: socket.bytes };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// --- initial sync and bytes per memory
const aFactory = new IDBFactory();
const aMemory = await openMemory({ indexedDB: aFactory, IDBKeyRange, name: 'a', indexSnapshots: false });
const inputs = Array.from({ length: N }, (_, i) => input(i));
const written = await aMemory.rememberMany(inputs);
const jsonBytes = written.results.reduce((sum, r) => sum + Buffer.byteLength(JSON.stringify(r.record)), 0) / N;
const aSocket = counting();
let t = performance.now();
const aShare = await shareNamespace(aMemory, NS, { url: relay.url, token, WebSocketPolyfill: aSocket.WebSocketPolyfill });
await aShare.synced;
await aShare.flush();
const pushMs = performance.now() - t;
await sleep(1000); // let the relay store and settle what A sent
const bulkBytesPerMemory = aSocket.bytes.sent / N;

const bSocket = counting();
t = performance.now();
const b = await replica('b', bSocket);
await b.share.synced;
const initialSyncMs = performance.now() - t;
const bCount = await b.memory.count(NS);
if (bCount !== N) throw new Error(`replica B holds ${bCount} memories, expected ${N}`);

// --- one write at a time
const before = aSocket.bytes.sent;
let singleJson = 0;
for (let i = 0; i < 100; i++) {
  const r = await aMemory.remember(input(N + i));
  singleJson += Buffer.byteLength(JSON.stringify(r.record));
  await aShare.flush();
}
await sleep(200);
const singleBytesPerMemory = (aSocket.bytes.sent - before) / 100;
singleJson /= 100;

// --- one write at a time, end-to-end encrypted (another namespace: a room is encrypted or not)
const SECRET_NS = { userId: 'bench-user', scope: 'encrypted' };
const secretToken = await issueToken({ secret: SECRET, subject: 'bench', rooms: [namespaceKey(SECRET_NS)], ttlSeconds: 3600 });
const eSocket = counting();
const eFactory = new IDBFactory();
const eMemory = await openMemory({ indexedDB: eFactory, IDBKeyRange, name: 'e', indexSnapshots: false });
const eShare = await shareNamespace(eMemory, SECRET_NS, { url: relay.url, token: secretToken, WebSocketPolyfill: eSocket.WebSocketPolyfill, encryptionKey: generateNamespaceKey() });
await eShare.synced;
await eShare.flush();
const eBefore = eSocket.bytes.sent;
let encryptedJson = 0;
for (let i = 0; i < 100; i++) {
  const r = await eMemory.remember({ ...input(N + i), namespace: SECRET_NS });
  encryptedJson += Buffer.byteLength(JSON.stringify(r.record));
  await eShare.flush();
}
await sleep(200);
const encryptedBytesPerMemory = (eSocket.bytes.sent - eBefore) / 100;
encryptedJson /= 100;
await eShare.close();
await eMemory.close();

// --- write-to-visible
async function latency(pollMs: number): Promise<ReturnType<typeof summarize>> {
  const writer = await replica(`w${pollMs}`, counting(), pollMs);
  const reader = await replica(`r${pollMs}`, counting(), pollMs);
  await Promise.all([writer.share.synced, reader.share.synced]);
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES + 20; i++) {
    await sleep(random() * 60); // writes at random moments, not in step with the audit-log poll
    const start = performance.now();
    const { id } = await writer.memory.remember({ namespace: NS, content: `latency probe ${pollMs} ${i}` });
    while (!(await reader.memory.get(NS, id))) await sleep(2);
    if (i >= 20) samples.push(performance.now() - start);
  }
  for (const r of [writer, reader]) {
    await r.share.close();
    await r.memory.close();
  }
  return summarize(samples);
}
const latency50 = await latency(50);
const latency10 = await latency(10);

await aShare.close();
await b.share.close();
await aMemory.close();
await b.memory.close();
await relay.close();
rmSync(dataDir, { recursive: true, force: true });

const round = (x: number) => Math.round(x * 10) / 10;
const result = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, loadavg: loadavg().map((x) => Math.round(x * 10) / 10) },
  records: N,
  pushMs: round(pushMs),
  initialSyncMs: round(initialSyncMs),
  recordJsonBytes: round(jsonBytes),
  bulkBytesPerMemory: round(bulkBytesPerMemory),
  bulkRatio: Math.round((bulkBytesPerMemory / jsonBytes) * 100) / 100,
  singleRecordJsonBytes: round(singleJson),
  singleBytesPerMemory: round(singleBytesPerMemory),
  singleRatio: Math.round((singleBytesPerMemory / singleJson) * 100) / 100,
  encryptedBytesPerMemory: round(encryptedBytesPerMemory),
  encryptedRatio: Math.round((encryptedBytesPerMemory / encryptedJson) * 100) / 100,
  latencyPoll50: latency50,
  latencyPoll10: latency10,
};
console.log(`| Measurement | value |
|---|---|
| initial sync of ${N} memories to a fresh replica (share -> synced, in its store) | ${(result.initialSyncMs / 1000).toFixed(2)} s |
| sharing ${N} existing memories (audit log -> document, sent) | ${(result.pushMs / 1000).toFixed(2)} s |
| bytes sent per memory, bulk (record JSON ${result.recordJsonBytes} B) | ${result.bulkBytesPerMemory} B (${result.bulkRatio}x) |
| bytes sent per memory, one write at a time (record JSON ${result.singleRecordJsonBytes} B) | ${result.singleBytesPerMemory} B (${result.singleRatio}x) |
| bytes sent per memory, one write at a time, encrypted (record JSON ${round(encryptedJson)} B) | ${result.encryptedBytesPerMemory} B (${result.encryptedRatio}x) |
| write-to-visible p50 / p95, audit poll 50 ms (default) | ${latency50.p50} / ${latency50.p95} ms |
| write-to-visible p50 / p95, audit poll 10 ms | ${latency10.p50} / ${latency10.p95} ms |
load average ${result.machine.loadavg.join(' ')}`);
mkdirSync(join(here, 'results'), { recursive: true });
const outFile = join(here, 'results', 'sync-speed.json');
// Every run is kept with --append: one run on a shared machine is not a figure.
const previous = args.append && existsSync(outFile) ? (JSON.parse(readFileSync(outFile, 'utf8')) as { runs: unknown[] }).runs : [];
writeFileSync(outFile, `${JSON.stringify({ benchmark: 'sync-speed', command: 'npx tsx test/bench/sync-speed.ts [--records N] [--samples N] [--append]', runs: [...previous, result] }, null, 2)}\n`);
