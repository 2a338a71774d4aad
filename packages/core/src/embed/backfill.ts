import type { MemoryDatabase } from '../store/database.ts';
import { withStorage } from '../store/storage-errors.ts';
import type { EmbedJob } from './embed-queue.ts';

/** Records read per backfill step (one read transaction each, so writes interleave). */
const STEP = 1000;

/**
 * Finds every stored record without a vector for `model` (a new database opened with an
 * embedder, a model change, a close before the queue finished) and hands it to the
 * embedding queue, a step at a time, off every caller's path. Progress shows in
 * `pendingEmbeddings()`. Returns how many records were queued.
 */
export async function backfillVectors(db: MemoryDatabase, model: string, enqueue: (jobs: EmbedJob[]) => void, stopped: () => boolean): Promise<number> {
  let after: [string, string] | undefined;
  let queued = 0;
  while (!stopped()) {
    const { rows, vectors } = await withStorage(() =>
      db.transaction('r', db.records, db.vectors, async () => {
        const range = after ? db.records.where(':id').above(after) : db.records.toCollection();
        const rows = await range.limit(STEP).toArray();
        const vectors = await db.vectors.bulkGet(rows.map((row) => [model, row.contentHash] as [string, string]));
        return { rows, vectors };
      }),
    );
    if (rows.length === 0) break;
    const missing = rows.filter((_, i) => vectors[i] === undefined);
    if (missing.length) enqueue(missing.map((row) => ({ ns: row.ns, id: row.id, hash: row.contentHash, content: row.content })));
    queued += missing.length;
    const last = rows[rows.length - 1]!;
    after = [last.ns, last.id];
    await new Promise((resolve) => setTimeout(resolve, 0)); // let callers' work go first
  }
  return queued;
}
