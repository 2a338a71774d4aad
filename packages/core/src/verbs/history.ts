import { ZeromemError } from '../public/errors.ts';
import { requireNamespace } from '../model/namespace.ts';
import type { RecordVersion } from '../public/history.ts';
import { isExpired } from '../store/row.ts';
import { requireId } from './get.ts';
import type { VerbContext } from '../write/verb-context.ts';

/**
 * The earlier versions of a live record, oldest first (the current one is `get`'s), each
 * with who replaced it and when. Updates, consolidation and replicated changes add one;
 * the last `historyDepth` (default 20) are kept. A forget (of any kind) or expiry deletes them
 * with the record. NOT_FOUND when there is no such live record.
 */
export async function history(ctx: VerbContext, namespace: unknown, id: unknown): Promise<RecordVersion[]> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const recordId = requireId(ctx, id);
  const [row] = await ctx.store.read((tx) => tx.getRecords([[ns.key, recordId]]));
  if (!row || isExpired(row, ctx.clock.now())) {
    throw new ZeromemError('NOT_FOUND', `No memory "${recordId}" in namespace ${ns.key} (it may have been forgotten or expired).`);
  }
  return row.history ?? [];
}
