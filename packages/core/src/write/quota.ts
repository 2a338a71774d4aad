import { ZeromemError } from '../public/errors.ts';
import type { ReadTransaction } from '../store/port.ts';
import type { RecordRow } from '../store/row.ts';
import type { VerbContext } from './verb-context.ts';

/** QUOTA_EXCEEDED when adding these rows would take a namespace over `maxRecordsPerNamespace` (inside the caller's transaction). */
export async function enforceQuota(ctx: VerbContext, tx: ReadTransaction, added: RecordRow[], now: number): Promise<void> {
  const max = ctx.limits.maxRecordsPerNamespace;
  if (!Number.isFinite(max) || added.length === 0) return;
  const perNamespace = new Map<string, number>();
  for (const row of added) perNamespace.set(row.ns, (perNamespace.get(row.ns) ?? 0) + 1);
  for (const [ns, adding] of perNamespace) {
    const stored = await tx.countRecords(ns);
    const expired = await tx.countExpired(ns, now);
    if (stored - expired + adding > max) {
      throw new ZeromemError(
        'QUOTA_EXCEEDED',
        `Namespace ${ns} would hold ${stored - expired + adding} memories, over its limit of ${max}; nothing was written. Forget old memories or raise limits.maxRecordsPerNamespace.`,
      );
    }
  }
}
