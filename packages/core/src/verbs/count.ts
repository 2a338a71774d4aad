import { requireNamespace } from '../model/namespace.ts';
import { validateReadFilter } from '../model/validate-filter.ts';
import { isValidAt } from '../model/validity.ts';
import { isEmptyFilter, matchesFilter } from '../store/match.ts';
import { isExpired, type RecordRow } from '../store/row.ts';
import { scanStreams, streamQuery } from './list.ts';
import type { VerbContext } from '../write/verb-context.ts';

/** How many live records in the namespace match the filter (all of them without one). */
export async function count(ctx: VerbContext, namespace: unknown, filter?: unknown): Promise<number> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const now = ctx.clock.now();
  const prepared = validateReadFilter(filter, ctx.limits, now);
  const order = { orderBy: 'createdAt', order: 'asc' } as const;
  return ctx.store.read(async (tx) => {
    // Index-only: every record is counted; subtract the expired ones and the keyed facts
    // that do not hold at the time asked (few: read through their own index).
    if (isEmptyFilter(prepared)) {
      const validAt = prepared.validAt;
      const invalid = validAt === undefined ? 0 : (await tx.keyedRecords(ns.key)).filter((row) => !isExpired(row, now) && !isValidAt(row, validAt)).length;
      return (await tx.countRecords(ns.key)) - (await tx.countExpired(ns.key, now)) - invalid;
    }
    const accept = (row: RecordRow) => matchesFilter(row, prepared, now);
    const ids = new Set<string>();
    for (const stream of scanStreams(prepared)) {
      for (const row of await tx.orderedRecords(streamQuery(ns.key, stream, prepared, order), accept)) ids.add(row.id);
    }
    return ids.size;
  });
}
