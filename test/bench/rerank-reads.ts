/**
 * What a vector index that keeps only its int8 rows in memory would pay per recall to
 * rerank from the file (issue 32: float rows out of the process): 256 candidates' float
 * vectors read from the store's `vectors` table (its (hash, model) index, one synchronous
 * better-sqlite3 look-up each, in one read transaction), decoded to Float32Array. Random
 * records of the namespace; prints the wall and CPU time of 50 such batches (CPU time is
 * what a loaded machine distorts least).
 *
 *   node --import tsx test/bench/rerank-reads.ts <dir> [name] [batches=50] [candidates=256]
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { vectorOf } from '../../packages/core/src/store/sqlite/sqlite-rows.ts';
import { mulberry32 } from '../kit/mulberry32.ts';
import { summarize } from './stats.ts';

const [dir, name = 'bench', batchesText = '50', candidatesText = '256'] = process.argv.slice(2);
const db = new Database(join(dir!, `${name}.sqlite`), { readonly: true });
const hashes = db.prepare('SELECT content_hash FROM records').pluck().all() as string[];
const model = db.prepare('SELECT id, name FROM vector_models').raw().all() as Array<[number, string]>;
const [modelId, modelName] = model.find(([, n]) => n.startsWith('bench-hash'))!;
const lookup = db.prepare('SELECT vector FROM vectors WHERE hash = ? AND model = ?').pluck();
const random = mulberry32(0x5eed);
const samples: number[] = [];
const cpu: number[] = [];
let found = 0;
for (let b = 0; b < Number(batchesText); b++) {
  const batch = Array.from({ length: Number(candidatesText) }, () => Buffer.from(hashes[Math.floor(random() * hashes.length)]!, 'hex'));
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  db.transaction(() => {
    for (const hash of batch) {
      const blob = lookup.get(hash, modelId) as Buffer | undefined;
      if (blob && vectorOf(modelName, '', blob).vector) found++;
    }
  })();
  samples.push(performance.now() - t0);
  const c1 = process.cpuUsage(c0);
  cpu.push((c1.user + c1.system) / 1000);
}
console.log(JSON.stringify({ records: hashes.length, candidates: Number(candidatesText), found, ms: summarize(samples), cpuMs: summarize(cpu) }));
db.close();
