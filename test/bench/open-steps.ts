/**
 * Where a store's open goes, step by step: a fresh process restores one namespace's index
 * snapshot by hand (read the row, decode it, rebuild records, words and vectors) and prints
 * the CPU time and `process.memoryUsage()` after each step (after a GC: run with
 * `--expose-gc`), as JSON lines.
 *
 *   node --expose-gc --import tsx test/bench/open-steps.ts <dir> [name] [ns]
 *
 * `<dir>` is a store prepared by `node-storage-worker.ts prepare disk <dir>` (name `bench`, namespace `u=bench`).
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { snapshotOf } from '../../packages/core/src/store/sqlite/sqlite-rows.ts';
import { restoreSnapshot, type IndexSnapshotRow } from '../../packages/core/src/search/index-snapshot.ts';

const [dir, name = 'bench', ns = 'u=bench'] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc;
let last = performance.now();
const step = (label: string) => {
  gc?.();
  const now = performance.now();
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  const mb = (x: number) => Math.round(x / 2 ** 20);
  console.log(JSON.stringify({ step: label, ms: Math.round(now - last), rssMB: mb(rss), heapMB: mb(heapUsed), externalMB: mb(external), arrayBuffersMB: mb(arrayBuffers) }));
  last = performance.now();
};
step('start');
const db = new Database(join(dir!, `${name}.sqlite`), { readonly: true });
const raw = db.prepare('SELECT last_seq, body FROM index_snapshots WHERE ns = ?').raw().get(ns) as [number, Buffer];
step(`read row (${raw[1].byteLength} bytes)`);
let row: IndexSnapshotRow | undefined = snapshotOf(ns, raw[0], raw[1]) as unknown as IndexSnapshotRow;
step('decode');
const model = row.model ?? undefined;
const restored = await restoreSnapshot(row, model);
row = undefined;
raw[1] = Buffer.alloc(0);
step('restore');
if (!restored) throw new Error('no restore');
const { index } = restored;
index.text.search('cupi nonorotu vagalo', 100);
step(`a BM25 search (${index.records.size} records, ${index.vectors?.size ?? 0} vectors)`);
db.close();
