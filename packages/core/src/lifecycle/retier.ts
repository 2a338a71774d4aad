import { requireNamespace } from '../model/namespace.ts';
import type { Namespace } from '../public/memory-record.ts';
import type { AuditRow } from '../store/port.ts';
import { fromRow, isExpired, type RecordRow } from '../store/row.ts';
import { readOptions } from '../write/verb-context.ts';
import { decayImportance, lastTouch } from './importance.ts';
import type { LifecycleContext } from './lifecycle-context.ts';
import type { LifecyclePolicy, RetierResult } from '../public/lifecycle.ts';
import { dropUnloadedSnapshots } from './stale-snapshots.ts';

/** Records read and written per transaction. */
const BATCH = 2000;

/**
 * Ages records by the clock: importance of untouched records decays toward the floor,
 * and records untouched for `coldAfter` whose importance is below `coldBelowImportance`
 * move to the cold tier (audited as `retier`). One namespace, or every record when no
 * namespace is given (maintenance, like `sweep`). Expired records are left to `sweep`.
 * Decay and tiering do not move `updatedAt` or `version`: they are use statistics.
 */
export async function retier(ctx: LifecycleContext, options?: unknown): Promise<RetierResult> {
  const opts = readOptions(options, ['namespace']);
  const ns = opts.namespace === undefined ? undefined : requireNamespace(opts.namespace, ctx.limits.maxNameLength);
  // Recalls noted but not yet written are touches: they count before anything ages.
  await ctx.access.flush();
  const now = ctx.clock.now();
  const result: RetierResult = { scanned: 0, decayed: 0, cooled: 0 };
  let after: readonly [string, string] | undefined;
  for (;;) {
    const { batch: rows, changed } = await ctx.store.write(async (tx) => {
      const batch = ns ? await tx.namespaceRecords(ns.key, { after: after?.[1], limit: BATCH }) : await tx.allRecords({ after, limit: BATCH });
      const changed: RecordRow[] = [];
      const audit: AuditRow[] = [];
      for (const row of batch) {
        if (isExpired(row, now)) continue;
        result.scanned++;
        const aged = age(row, now, ctx.lifecycle);
        if (aged.importance !== row.importance) result.decayed++;
        if (aged.tier !== row.tier && aged.tier === 'cold') {
          result.cooled++;
          audit.push({ ns: row.ns, op: 'retier', id: row.id, namespace: row.namespace, at: now, actor: 'retier' });
        }
        // Unchanged rows are not rewritten: a pass over a settled store writes nothing.
        if (aged.importance !== row.importance || aged.tier !== (row.tier ?? 'hot')) changed.push({ ...row, ...aged });
      }
      await tx.putRecords(changed);
      await tx.appendAudit(audit);
      await dropUnloadedSnapshots(ctx, tx, changed);
      return { batch, changed };
    });
    ctx.indexes.refresh(changed.map(fromRow));
    if (rows.length < BATCH) return result;
    const last = rows[rows.length - 1]!;
    after = [last.ns, last.id];
  }
}

/** A row's importance, tier and decay mark at `now`. */
function age(row: RecordRow, now: number, policy: LifecyclePolicy): Pick<RecordRow, 'importance' | 'tier' | 'decayedAt'> {
  const touched = lastTouch(row);
  // Decay counts from the last touch or the last pass, whichever is later: never twice for the same time.
  const importance = decayImportance(row.importance, Math.max(touched, row.decayedAt ?? 0), now, policy);
  const idle = now - touched >= policy.coldAfterMs;
  const tier = row.tier === 'cold' || (idle && importance < policy.coldBelowImportance) ? 'cold' : 'hot';
  return { importance, tier, decayedAt: now };
}
