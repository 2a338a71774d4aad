/**
 * Issue 29 item 2, measured: how many forgotten or replaced texts a device keeps on disk
 * when the forgets and updates happen while its share is offline. One memory on disk
 * (Node's store, `historyDepth: 0`, no storage option for the share, as `zeromem serve
 * --share` and `zeromem-mcp --share` run), a relay in this process; per round: 40 records
 * shared, the share disconnected, 10 forgotten and 10 updated, then every file of the
 * store's directory grepped for the 20 old texts, after 1.5 s and after the share and the
 * memory closed. The same script runs on any checkout (it uses only public API), so a
 * release before the fix and after it can be compared:
 *
 *   npx tsx test/bench/offline-erasure.ts [--rounds 5]
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { namespaceKey, openMemory } from '@zeromem/core';
import { issueToken, startRelay } from '@zeromem/relay';
import { shareNamespace } from '@zeromem/sync';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const ROUNDS = Number(values.rounds);
const SECRET = 'offline-erasure-bench-secret-0123456789-abcdefghijklmnop';
const NS = { userId: 'bench', scope: 'offline' };

/** How many of `needles` some file under `dir` holds, and the files that hold any. */
function traces(dir: string, needles: string[]): { found: number; files: string[] } {
  const files = readdirSync(dir).filter((file) => !file.startsWith('relay'));
  const bytes = files.map((file) => readFileSync(join(dir, file)));
  const found = needles.filter((needle) => bytes.some((b) => b.includes(Buffer.from(needle)))).length;
  return { found, files: files.filter((_, i) => needles.some((needle) => bytes[i]!.includes(Buffer.from(needle)))) };
}

const relayDir = mkdtempSync(join(tmpdir(), 'zeromem-erasure-relay-'));
const relay = await startRelay({ secret: SECRET, dataDir: relayDir, logLevel: 'silent', port: 0 });
const token = await issueToken({ secret: SECRET, subject: 'bench', rooms: [namespaceKey(NS)], ttlSeconds: 3600 });
const rows: string[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-erasure-'));
  const memory = await openMemory({ name: 'device', directory: dir, historyDepth: 0 });
  const share = await shareNamespace(memory, NS, { url: relay.url, token, WebSocketPolyfill: WebSocket, onError: () => undefined });
  await share.synced;
  const written = await memory.rememberMany(Array.from({ length: 40 }, (_, i) => ({ namespace: NS, content: `old-text-${round}-${i}-${Math.random().toString(36).slice(2)} note ${i}` })));
  const records = written.results.map((result) => result.record!);
  await share.flush();
  share.disconnect();
  const old = records.slice(0, 20).map((record) => record.content);
  for (const record of records.slice(0, 10)) await memory.forget(NS, record.id);
  for (const record of records.slice(10, 20)) await memory.update(NS, record.id, { content: `new text of ${record.id}` });
  await share.flush();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const open = traces(dir, old);
  await share.close();
  await memory.close();
  const closed = traces(dir, old);
  rows.push(`| ${round + 1} | ${open.found} / 20 (${open.files.join(', ') || '-'}) | ${closed.found} / 20 (${closed.files.join(', ') || '-'}) | ${readdirSync(dir).join(', ')} |`);
  rmSync(dir, { recursive: true, force: true });
}
await relay.close();
rmSync(relayDir, { recursive: true, force: true });
console.log('| round | old texts on disk, share offline, 1.5 s after (files) | after share and memory closed (files) | files in the directory after close |');
console.log('|---|---|---|---|');
for (const row of rows) console.log(row);
process.exit(0);
