import { deleteRows } from '../store/delete-rows.ts';
import type { ReadTransaction } from '../store/port.ts';
import { isExpired, type RecordRow } from '../store/row.ts';
import type { WriteContext } from './verb-context.ts';
import { factKeysOf, settleKeys } from './settle-keys.ts';
import type { CopyMatch } from './record-copies.ts';

/**
 * The whole contract of every forget verb. One transaction deletes the rows `select`
 * picks (read inside it, at `now`) with their audit rows, orphaned vectors and their
 * namespaces' index snapshots; live rows are logged as forgotten by `actor`, expired ones
 * as expiries, as `sweep` logs them; the versions left of the fact keys they held are
 * settled again (write/settle-keys.ts). Once it committed, the other copies of the records
 * this process holds (embed queue, token-count cache, history counts, loaded indexes)
 * that `reach` names for the deleted rows are purged (write/record-copies.ts).
 */
export async function forgetRows(
  ctx: WriteContext,
  actor: string,
  select: (tx: ReadTransaction, now: number) => Promise<RecordRow[]>,
  reach: (deleted: { live: RecordRow[]; expired: RecordRow[] }) => CopyMatch,
): Promise<{ live: RecordRow[]; expired: RecordRow[] }> {
  const now = ctx.clock.now();
  const deleted = await ctx.store.write(async (tx) => {
    const rows = await select(tx, now);
    const live = rows.filter((row) => !isExpired(row, now));
    const expired = rows.filter((row) => isExpired(row, now));
    await deleteRows(tx, live, 'forget', actor, now);
    await deleteRows(tx, expired, 'expire', 'sweep', now);
    // The versions left of a fact key follow each other anew (forgetting every version leaves none).
    await settleKeys(tx, factKeysOf(rows));
    return { live, expired };
  });
  await ctx.copies.purge(reach(deleted));
  return deleted;
}
