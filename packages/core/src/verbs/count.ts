import { requireNamespace } from '../model/namespace.ts';
import { validateFilter } from '../model/validate-filter.ts';
import { isEmptyFilter, matchesFilter } from '../store/match.ts';
import { streamPrefix } from '../store/sort-keys.ts';
import { withStorage } from '../store/storage-errors.ts';
import { orderedRows, scanStreams } from './list.ts';
import type { VerbContext } from '../write/context.ts';

/** How many live records in the namespace match the filter (all of them without one). */
export async function count(ctx: VerbContext, namespace: unknown, filter?: unknown): Promise<number> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const prepared = validateFilter(filter, ctx.limits);
  const now = ctx.clock.now();
  const { records } = ctx.db;
  return withStorage(async () => {
    if (isEmptyFilter(prepared)) {
      // Index-only: every record has one whole-namespace sort key; subtract the expired ones.
      const prefix = streamPrefix(ns.key, '');
      const all = await records.where('byCreated').between(prefix, `${prefix}\uffff`).count();
      const expired = await records.where('[ns+expiresAt]').between([ns.key, 0], [ns.key, now], true, true).count();
      return all - expired;
    }
    const streams = scanStreams(prepared);
    if (streams.length === 1) {
      return orderedRows(ctx.db, ns.key, streams[0]!, prepared, { orderBy: 'createdAt', order: 'asc' })
        .filter((row) => matchesFilter(row, prepared, now))
        .count();
    }
    const ids = new Set<string>();
    for (const stream of streams) {
      await orderedRows(ctx.db, ns.key, stream, prepared, { orderBy: 'createdAt', order: 'asc' })
        .filter((row) => matchesFilter(row, prepared, now))
        .each((row) => void ids.add(row.id));
    }
    return ids.size;
  });
}
