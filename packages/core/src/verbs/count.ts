import { requireNamespace } from '../model/namespace.ts';
import { validateReadFilter } from '../model/validate-filter.ts';
import { isValidAt } from '../model/validity.ts';
import { keyedRows } from '../store/keyed-rows.ts';
import { isExpired } from '../store/row.ts';
import { isEmptyFilter, matchesFilter } from '../store/match.ts';
import { streamPrefix } from '../store/sort-keys.ts';
import { withStorage } from '../store/storage-errors.ts';
import { orderedRows, scanStreams } from './list.ts';
import type { VerbContext } from '../write/context.ts';

/** How many live records in the namespace match the filter (all of them without one). */
export async function count(ctx: VerbContext, namespace: unknown, filter?: unknown): Promise<number> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const now = ctx.clock.now();
  const prepared = validateReadFilter(filter, ctx.limits, now);
  const { records } = ctx.db;
  return withStorage(async () => {
    if (isEmptyFilter(prepared)) {
      // Index-only: every record has one whole-namespace sort key; subtract the expired ones
      // and the keyed facts that do not hold at the time asked (few: read through their index).
      const prefix = streamPrefix(ns.key, '');
      const all = await records.where('byCreated').between(prefix, `${prefix}\uffff`).count();
      const expired = await records.where('[ns+expiresAt]').between([ns.key, 0], [ns.key, now], true, true).count();
      const validAt = prepared.validAt;
      const invalid = validAt === undefined ? 0 : (await keyedRows(ctx.db, ns.key)).filter((row) => !isExpired(row, now) && !isValidAt(row, validAt)).length;
      return all - expired - invalid;
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
