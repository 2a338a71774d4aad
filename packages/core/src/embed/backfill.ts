import { Dexie } from 'dexie';
import type { MemoryDatabase } from '../store/database.ts';
import { withStorage } from '../store/storage-errors.ts';
import type { EmbedJob } from './embed-queue.ts';

/** Records read per backfill step (one read transaction each, so writes interleave). */
const STEP = 1000;

/**
 * Finds every stored record without a vector for `model` (a new database opened with an
 * embedder, a model change, a close before the queue finished) and hands it to the
 * embedding queue, off every caller's path. Progress shows in `pendingEmbeddings()`.
 * Usually two counts show there is nothing to do; otherwise only keys are read to find
 * them (the model's stored hashes, the records' content hashes): reading every row on
 * each open took seconds at 100k records. Returns how many records were queued.
 */
export async function backfillVectors(db: MemoryDatabase, model: string, enqueue: (jobs: EmbedJob[]) => void, stopped: () => boolean): Promise<number> {
  const missing = await withStorage(() =>
    db.transaction('r', db.records, db.vectors, async () => {
      const ofModel = db.vectors.where('[model+hash]').between([model, Dexie.minKey], [model, Dexie.maxKey]);
      // Vectors exist only for hashes some record holds (they go with the last such record):
      // as many as there are records means every record has its vector. The usual reopen.
      if ((await ofModel.count()) >= (await db.records.count())) return [];
      const stored = await ofModel.primaryKeys();
      const embedded = new Set(stored.map(([, hash]) => hash));
      const keys: Array<[string, string]> = [];
      await db.records.orderBy('contentHash').eachKey((hash, cursor) => {
        if (!embedded.has(hash as string)) keys.push(cursor.primaryKey as [string, string]);
      });
      return keys;
    }),
  );
  let queued = 0;
  for (let i = 0; i < missing.length && !stopped(); i += STEP) {
    const rows = await withStorage(() => db.records.bulkGet(missing.slice(i, i + STEP)));
    const jobs: EmbedJob[] = [];
    for (const row of rows) if (row) jobs.push({ ns: row.ns, id: row.id, hash: row.contentHash, content: row.content });
    if (jobs.length) enqueue(jobs);
    queued += jobs.length;
    await new Promise((resolve) => setTimeout(resolve, 0)); // let callers' work go first
  }
  return queued;
}
