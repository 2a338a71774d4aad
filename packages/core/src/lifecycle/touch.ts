import type { AuditRow } from '../store/port.ts';
import { fromRow, isExpired, type RecordRow } from '../store/row.ts';
import type { MemoryRecord, Namespace } from '../public/memory-record.ts';
import { gainImportance } from './importance.ts';
import type { LifecycleContext } from './lifecycle-context.ts';
import { dropUnloadedSnapshots } from './stale-snapshots.ts';

/**
 * Touches records in one transaction: each becomes hot (a tier change is audited as
 * `retier`) and `lastAccessedAt` moves to now, so `retier` counts it as recently used;
 * with `gain`, its importance rises by the policy's `useGain`. Missing or expired ids are
 * skipped. The loaded index gets the new records at once. Returns the touched records.
 */
export async function touchRecords(
  ctx: LifecycleContext,
  ns: { key: string; namespace: Namespace },
  ids: readonly string[],
  gain: boolean,
): Promise<MemoryRecord[]> {
  const now = ctx.clock.now();
  const records = await ctx.store.write(async (tx) => {
    const rows = await tx.getRecords(ids.map((id) => [ns.key, id] as const));
    const changed: RecordRow[] = [];
    const audit: AuditRow[] = [];
    for (const row of rows) {
      if (!row || isExpired(row, now) || changed.some((c) => c.id === row.id)) continue;
      if (row.tier === 'cold') audit.push({ ns: row.ns, op: 'retier', id: row.id, namespace: row.namespace, at: now, actor: ctx.actor });
      changed.push({
        ...row,
        tier: 'hot',
        importance: gain ? gainImportance(row.importance, ctx.lifecycle) : row.importance,
        lastAccessedAt: Math.max(row.lastAccessedAt ?? 0, now),
      });
    }
    await tx.putRecords(changed);
    await tx.appendAudit(audit);
    await dropUnloadedSnapshots(ctx, tx, changed);
    return changed.map(fromRow);
  });
  ctx.indexes.refresh(records); // after the commit: an aborted write must not reach the index
  return records;
}
