import { deleteRows } from '../store/delete-rows.ts';
import { withStorage } from '../store/storage-errors.ts';
import type { DeletedRecord } from '../write/deleted-record.ts';
import type { WriteContext } from '../write/context.ts';
import { factKeysOf, settleKeys } from '../write/settle-keys.ts';

/** Records deleted per sweep transaction, so a large sweep does not hold one huge transaction. */
const SWEEP_BATCH = 5000;

/**
 * Deletes every expired record in the database (all namespaces: this is maintenance,
 * not a read), purges this process's other copies of them, and returns which.
 * Reads never return expired records, swept or not.
 */
export async function sweep(ctx: WriteContext): Promise<DeletedRecord[]> {
  const now = ctx.clock.now();
  const { db } = ctx;
  const all: DeletedRecord[] = [];
  for (;;) {
    const deleted = await withStorage(() =>
      db.transaction('rw', db.records, db.audit, db.vectors, db.indexSnapshots, async () => {
        const rows = await db.records.where('expiresAt').belowOrEqual(now).limit(SWEEP_BATCH).toArray();
        await deleteRows(db, rows, 'expire', 'sweep', now);
        await settleKeys(db, factKeysOf(rows));
        return rows.map((row) => ({ ns: row.ns, id: row.id }));
      }),
    );
    all.push(...deleted);
    if (deleted.length < SWEEP_BATCH) break;
  }
  await ctx.copies.purgeRecords(all);
  return all;
}
