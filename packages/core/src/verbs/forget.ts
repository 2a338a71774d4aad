import { requireNamespace } from '../model/namespace.ts';
import { deleteRows } from '../store/delete-rows.ts';
import { isExpired } from '../store/row.ts';
import { withStorage } from '../store/storage-errors.ts';
import { requireId } from './get.ts';
import { readOptions, resolveActor, type VerbContext } from '../write/context.ts';

/**
 * Deletes one record; its content is gone from the database when this resolves.
 * Returns true when a live record was forgotten, false when there was none (an expired
 * record is deleted all the same).
 */
export async function forget(ctx: VerbContext, namespace: unknown, id: unknown, options?: unknown): Promise<boolean> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const recordId = requireId(ctx, id);
  const actor = resolveActor(ctx, readOptions(options, ['actor']));
  const now = ctx.clock.now();
  const { db } = ctx;
  return withStorage(() =>
    db.transaction('rw', db.records, db.audit, db.vectors, db.indexSnapshots, async () => {
      const row = await db.records.get([ns.key, recordId]);
      if (!row) return false;
      const live = !isExpired(row, now);
      await deleteRows(db, [row], live ? 'forget' : 'expire', live ? actor : 'sweep', now);
      return live;
    }),
  );
}
