import { deleteRows } from '../store/delete-rows.ts';
import { withStorage } from '../store/storage-errors.ts';
import type { VerbContext } from './verb-context.ts';

/** Records deleted per sweep transaction, so a large sweep does not hold one huge transaction. */
const SWEEP_BATCH = 5000;

/**
 * Deletes every expired record in the database (all namespaces: this is maintenance,
 * not a read) and returns how many. Reads never return expired records, swept or not.
 */
export async function sweep(ctx: VerbContext): Promise<number> {
  const now = ctx.clock.now();
  const { db } = ctx;
  let total = 0;
  for (;;) {
    const deleted = await withStorage(() =>
      db.transaction('rw', db.records, db.audit, db.vectors, db.indexSnapshots, async () => {
        const rows = await db.records.where('expiresAt').belowOrEqual(now).limit(SWEEP_BATCH).toArray();
        await deleteRows(db, rows, 'expire', 'sweep', now);
        return rows.length;
      }),
    );
    total += deleted;
    if (deleted < SWEEP_BATCH) return total;
  }
}
