import { requireNamespace } from '../model/namespace.ts';
import { validateFilter } from '../model/validate-filter.ts';
import { isEmptyFilter, matchesFilter } from '../store/match.ts';
import type { RecordRow } from '../store/row.ts';
import { scanStreams, streamQuery } from './list.ts';
import type { VerbContext } from '../write/context.ts';

/** How many live records in the namespace match the filter (all of them without one). */
export async function count(ctx: VerbContext, namespace: unknown, filter?: unknown): Promise<number> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const prepared = validateFilter(filter, ctx.limits);
  const now = ctx.clock.now();
  const order = { orderBy: 'createdAt', order: 'asc' } as const;
  return ctx.store.read(async (tx) => {
    // Index-only: every record is counted; subtract the expired ones.
    if (isEmptyFilter(prepared)) return (await tx.countRecords(ns.key)) - (await tx.countExpired(ns.key, now));
    const accept = (row: RecordRow) => matchesFilter(row, prepared, now);
    const ids = new Set<string>();
    for (const stream of scanStreams(prepared)) {
      for (const row of await tx.orderedRecords(streamQuery(ns.key, stream, prepared, order), accept)) ids.add(row.id);
    }
    return ids.size;
  });
}
