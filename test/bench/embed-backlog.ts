/**
 * Background embedding after a bulk write (issue 32): 100k short English memories written
 * with `rememberMany` (10k a call) into a store on disk opened with the bundled embedder,
 * then the time from the last write's ack until `whenEmbedded()`; beside it the same
 * embedder's own time on the same texts in calls of 64 (the queue's batch). One measurement
 * per process; `--core <dir>` points at another checkout's packages/core/src (base vs branch).
 * Then one recall (the index is built) and close (its snapshot stored): the store's size
 * on disk as a door leaves it (`storeMB`, every file of the store directory).
 *
 *   node --conditions=development --import tsx test/bench/embed-backlog.ts <core|model> [n] [--core <src dir>]
 *
 * Prints one JSON line.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { createBundledEmbedder } from '../../packages/embed-transformers/src/index.ts';

const args = process.argv.slice(2);
const coreAt = args.indexOf('--core');
const coreDir = coreAt >= 0 ? resolve(args[coreAt + 1]!) : resolve(import.meta.dirname, '../../packages/core/src');
const [what = 'core', nText = '100000'] = args.filter((_, i) => coreAt < 0 || (i !== coreAt && i !== coreAt + 1));
const n = Number(nText);

/** n distinct short English texts: sentences of LongMemEval's sample, cut to ~80 characters, numbered. */
function texts(count: number): string[] {
  const raw = gunzipSync(readFileSync(resolve(import.meta.dirname, '../../../shared/bench-data/longmemeval-s-sample/memories.jsonl.gz'))).toString('utf8');
  const sentences: string[] = [];
  for (const line of raw.split('\n')) {
    if (!line) continue;
    const text = (JSON.parse(line) as { text: string }).text;
    for (const s of text.split(/(?<=[.!?])\s+/)) if (s.length >= 20 && !/\p{Script=Han}/u.test(s)) sentences.push(s.slice(0, 80).replace(/[\uD800-\uDBFF]$/, ''));
    if (sentences.length >= count) break;
  }
  return Array.from({ length: count }, (_, i) => `${sentences[i % sentences.length]} (${i})`);
}

const all = texts(n);
const embedder = await createBundledEmbedder();
if (what === 'model') {
  await embedder.embed([all[0]!], 'document'); // load
  const t0 = performance.now();
  for (let i = 0; i < n; i += 64) await embedder.embed(all.slice(i, i + 64), 'document');
  console.log(JSON.stringify({ what, n, ms: Math.round(performance.now() - t0) }));
} else {
  const { openMemory } = (await import(pathToFileURL(join(coreDir, 'index.node.ts')).href)) as typeof import('../../packages/core/src/index.node.ts');
  await embedder.embed([all[0]!], 'document'); // load, as 'model' does
  const dir = mkdtempSync(join(tmpdir(), 'embed-backlog-'));
  const memory = await openMemory({ name: 'bench', directory: dir, embedder });
  const ns = { userId: 'bench' };
  const t0 = performance.now();
  for (let i = 0; i < n; i += 10_000) await memory.rememberMany(all.slice(i, i + 10_000).map((content) => ({ namespace: ns, content })));
  const written = performance.now();
  const pendingAtLastWrite = memory.pendingEmbeddings();
  await memory.whenEmbedded();
  const embedded = performance.now();
  await memory.recall(ns, 'piano lessons on Sunday'); // builds the index: close() stores its snapshot, as a door's store holds one
  await memory.close();
  const bytes = readdirSync(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
  rmSync(dir, { recursive: true, force: true });
  console.log(JSON.stringify({ what, n, writeMs: Math.round(written - t0), afterLastWriteMs: Math.round(embedded - written), pendingAtLastWrite, totalMs: Math.round(embedded - t0), bytesPerRecord: Math.round(bytes / n), storeMB: Math.round(bytes / 1e5) / 10 }));
}
