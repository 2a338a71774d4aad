import type { AuditRow } from '../store/database.ts';
import { fromRow, isExpired, type RecordRow } from '../store/row.ts';
import { withStorage } from '../store/storage-errors.ts';
import type { MemoryRecord, Namespace } from '../model/types.ts';
import type { RecallResult } from '../verbs/recall.ts';
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
  const { db } = ctx;
  const records = await withStorage(() =>
    db.transaction('rw', db.records, db.audit, db.indexSnapshots, async () => {
      const rows = await db.records.bulkGet(ids.map((id) => [ns.key, id] as [string, string]));
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
      if (changed.length) await db.records.bulkPut(changed);
      if (audit.length) await db.audit.bulkAdd(audit);
      await dropUnloadedSnapshots(ctx, changed);
      return changed.map(fromRow);
    }),
  );
  ctx.indexes.refresh(records); // after the commit: an aborted write must not reach the index
  return records;
}

/** A recall's result with its cold hits re-warmed (when the recall counted as access), each hit showing its record after that. */
export async function rewarmHits(ctx: LifecycleContext, ns: { key: string; namespace: Namespace }, result: RecallResult, trackAccess: boolean): Promise<RecallResult> {
  const cold = result.hits.filter((hit) => hit.record.tier === 'cold');
  if (cold.length === 0 || !trackAccess) return result;
  const warm = new Map((await touchRecords(ctx, ns, cold.map((hit) => hit.id), false)).map((record) => [record.id, record]));
  return { ...result, hits: result.hits.map((hit) => ({ ...hit, record: warm.get(hit.id) ?? hit.record })) };
}

/** A record as `get` returns it: a cold one is re-warmed by the read. */
export async function rewarmRead(ctx: LifecycleContext, record: MemoryRecord | undefined): Promise<MemoryRecord | undefined> {
  if (record?.tier !== 'cold') return record;
  const [warm] = await touchRecords(ctx, { key: record.namespaceKey, namespace: record.namespace }, [record.id], false);
  return warm ?? record;
}
