import type { RecordKey, StoragePort } from '../store/port.ts';
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
export async function backfillVectors(store: StoragePort, model: string, enqueue: (jobs: EmbedJob[]) => void, stopped: () => boolean): Promise<number> {
  const missing = await store.read(async (tx): Promise<RecordKey[]> => {
    // Vectors exist only for hashes some record holds (they go with the last such record):
    // as many as there are records means every record has its vector. The usual reopen.
    if ((await tx.countVectors(model)) >= (await tx.countRecords())) return [];
    const embedded = new Set(await tx.vectorHashes(model));
    return (await tx.recordHashes()).filter((row) => !embedded.has(row.contentHash)).map((row) => [row.ns, row.id] as const);
  });
  let queued = 0;
  for (let i = 0; i < missing.length && !stopped(); i += STEP) {
    const rows = await store.read((tx) => tx.getRecords(missing.slice(i, i + STEP)));
    const jobs: EmbedJob[] = [];
    for (const row of rows) if (row) jobs.push({ ns: row.ns, id: row.id, hash: row.contentHash, content: row.content });
    if (jobs.length) enqueue(jobs);
    queued += jobs.length;
    await new Promise((resolve) => setTimeout(resolve, 0)); // let callers' work go first
  }
  return queued;
}
