import { Dexie } from 'dexie';
import { requireNamespace } from '../model/namespace.ts';
import { deleteRows } from '../store/delete-rows.ts';
import { isExpired } from '../store/row.ts';
import { withStorage } from '../store/storage-errors.ts';
import { readOptions, resolveActor, type VerbContext } from '../write/context.ts';

/**
 * Deletes every record of exactly this namespace (not the narrower ones under it:
 * `{ userId }` does not include `{ userId, agentId }`). Returns how many were deleted.
 */
export async function forgetNamespace(ctx: VerbContext, namespace: unknown, options?: unknown): Promise<number> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const actor = resolveActor(ctx, readOptions(options, ['actor']));
  const now = ctx.clock.now();
  const { db } = ctx;
  return withStorage(() =>
    db.transaction('rw', db.records, db.audit, db.vectors, db.indexSnapshots, async () => {
      const rows = await db.records.where('[ns+id]').between([ns.key, Dexie.minKey], [ns.key, Dexie.maxKey]).toArray();
      // Expired rows are logged as expiries, as sweep() and forget() log them.
      await deleteRows(db, rows.filter((row) => !isExpired(row, now)), 'forget', actor, now);
      await deleteRows(db, rows.filter((row) => isExpired(row, now)), 'expire', 'sweep', now);
      return rows.length;
    }),
  );
}
