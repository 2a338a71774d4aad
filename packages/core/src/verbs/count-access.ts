import { requireNamespace } from '../model/namespace.ts';
import type { Namespace } from '../public/memory-record.ts';
import type { RecallContext } from '../write/verb-context.ts';

/**
 * Counts records that were put into a built context as accessed, the way recall counts
 * its hits: batched in the access tracker, and raised at once in the loaded index's copy
 * so the next recall of this instance ranks with it. A built context recalls more
 * candidates than it keeps; only the kept ones count. Only access statistics (heat)
 * change: unlike `markUsed` (lifecycle/mark-used.ts), importance stays as it is.
 */
export async function countAccess(ctx: RecallContext, namespace: Namespace, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const now = ctx.clock.now();
  const index = await ctx.indexes.ready(ns.key);
  ctx.access.note(ns.key, ids, now);
  index.noteAccess(ids, now);
}
