import { deleteRows } from '../store/delete-rows.ts';
import type { DeletedRecord } from '../write/deleted-record.ts';
import type { WriteContext } from '../write/verb-context.ts';
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
  const all: DeletedRecord[] = [];
  for (;;) {
    const deleted = await ctx.store.write(async (tx) => {
      const rows = await tx.expiredRecords(now, SWEEP_BATCH);
      await deleteRows(tx, rows, 'expire', 'sweep', now);
      await settleKeys(tx, factKeysOf(rows));
      return rows.map((row) => ({ ns: row.ns, id: row.id }));
    });
    all.push(...deleted);
    if (deleted.length < SWEEP_BATCH) break;
  }
  await ctx.copies.purgeRecords(all);
  return all;
}
