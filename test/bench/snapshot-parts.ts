/**
 * What an index snapshot is made of: the bytes of each part of one namespace's stored body
 * (record columns, BM25 words, vectors), and its counts (records, distinct words, postings,
 * vectors), read from a store prepared by `node-storage-worker.ts prepare disk <dir>`.
 * Prints one JSON line per part, largest first, then the totals.
 *
 *   node --import tsx test/bench/snapshot-parts.ts <dir> [name] [ns]
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Connection } from '../../packages/core/src/store/sqlite/sqlite-connection.ts';
import { getSnapshotBody } from '../../packages/core/src/store/sqlite/snapshot-pieces.ts';
import { snapshotOf } from '../../packages/core/src/store/sqlite/sqlite-rows.ts';

const [dir, name = 'bench', ns = 'u=bench'] = process.argv.slice(2);
const connection = new Connection(Database, join(dir!, `${name}.sqlite`), 'NORMAL', 1000);
const stored = getSnapshotBody(connection, ns);
if (!stored) throw new Error(`no snapshot of ${ns}`);
const row = snapshotOf(ns, stored.lastSeq, stored.body) as unknown as Record<string, unknown>;
const parts: Array<{ part: string; bytes: number; length: number }> = [];
const walk = (value: unknown, path: string): void => {
  if (ArrayBuffer.isView(value)) parts.push({ part: path, bytes: value.byteLength, length: (value as unknown as { length: number }).length });
  else if (typeof value === 'string') parts.push({ part: path, bytes: Buffer.byteLength(value), length: value.length });
  else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}[${i}]`));
  else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) walk(item, path ? `${path}.${key}` : key);
};
walk(row, '');
parts.sort((a, b) => b.bytes - a.bytes);
for (const part of parts.filter((p) => p.bytes > 1000)) console.log(JSON.stringify({ ...part, MB: Math.round(part.bytes / 1e4) / 100 }));
const text = row['text'] as { terms: string; docs: Int32Array };
console.log(JSON.stringify({ bodyMB: Math.round(stored.body.byteLength / 1e4) / 100, distinctWords: (JSON.parse(text.terms) as string[]).length, postings: text.docs.length }));
connection.close();
