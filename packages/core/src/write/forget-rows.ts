import { deleteRows } from '../store/delete-rows.ts';
import { isExpired, type RecordRow } from '../store/row.ts';
import { withStorage } from '../store/storage-errors.ts';
import type { VerbContext } from './context.ts';

/**
 * The one transaction of every forget verb: deletes the rows `select` picks (read inside
 * it, at `now`) with their audit rows, orphaned vectors and their namespaces' index
 * snapshots. Live rows are logged as forgotten by `actor`, expired ones as expiries, as
 * `sweep` logs them. What other copies of the records this process holds (embed queue,
 * caches, loaded indexes) is the purge's, after the commit.
 */
export function forgetRows(ctx: VerbContext, actor: string, select: (now: number) => Promise<RecordRow[]>): Promise<{ live: RecordRow[]; expired: RecordRow[] }> {
  const now = ctx.clock.now();
  const { db } = ctx;
  return withStorage(() =>
    db.transaction('rw', db.records, db.audit, db.vectors, db.indexSnapshots, async () => {
      const rows = await select(now);
      const live = rows.filter((row) => !isExpired(row, now));
      const expired = rows.filter((row) => isExpired(row, now));
      await deleteRows(db, live, 'forget', actor, now);
      await deleteRows(db, expired, 'expire', 'sweep', now);
      return { live, expired };
    }),
  );
}
