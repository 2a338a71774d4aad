import { requireNamespace } from '../model/namespace.ts';
import { requireId } from './get.ts';
import { readOptions, resolveActor, type WriteContext } from '../write/verb-context.ts';
import { forgetRows } from '../write/forget-rows.ts';

/**
 * Deletes one record; its content is gone from the database when this resolves.
 * Returns true when a live record was forgotten, false when there was none (an expired
 * record is deleted all the same).
 */
export async function forget(ctx: WriteContext, namespace: unknown, id: unknown, options?: unknown): Promise<boolean> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const recordId = requireId(ctx, id);
  const actor = resolveActor(ctx, readOptions(options, ['actor']));
  const { live } = await forgetRows(
    ctx,
    actor,
    async (tx) => {
      const [row] = await tx.getRecords([[ns.key, recordId]]);
      return row ? [row] : [];
    },
    // Also a queued job of this id when the row was already gone (forgotten by another process).
    () => (key, id) => key === ns.key && (id === undefined || id === recordId),
  );
  return live.length > 0;
}
