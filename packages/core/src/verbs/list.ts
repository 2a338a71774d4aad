import type { Collection } from 'dexie';
import { requireNamespace } from '../model/namespace.ts';
import type { ListPage } from '../model/types.ts';
import type { PreparedFilter } from '../model/validate-filter.ts';
import { encodeCursor, validateListOptions, type PreparedList } from '../model/validate-filter.ts';
import type { MemoryDatabase } from '../store/database.ts';
import { matchesFilter } from '../store/match.ts';
import { fromRow, type RecordRow } from '../store/row.ts';
import { position, streamPrefix, streamRange } from '../store/sort-keys.ts';
import { withStorage } from '../store/storage-errors.ts';
import type { VerbContext } from './verb-context.ts';

/**
 * A page of live records in a namespace, newest first unless told otherwise, filtered by
 * tags, metadata, source, layer and time. Pass `nextCursor` back as `cursor` for the next page.
 */
export async function list(ctx: VerbContext, namespace: unknown, options?: unknown): Promise<ListPage> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const query = validateListOptions(options, ctx.limits, ns.key);
  const now = ctx.clock.now();
  return withStorage(async () => {
    const streams = await Promise.all(
      streamTags(query).map((tag) => orderedRows(ctx.db, ns.key, tag, query, query).filter((row) => matchesFilter(row, query, now)).limit(query.limit + 1).toArray()),
    );
    const field = query.orderBy;
    const merged = mergeStreams(streams, (row) => position(row[field], row.id), query.order);
    const page = merged.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      items: page.map(fromRow),
      nextCursor: merged.length > query.limit && last ? encodeCursor(position(last[field], last.id), query.orderBy, query.order, query.listKey) : null,
    };
  });
}

/**
 * Which sort-key streams to scan: one per `any` tag (their union is the answer), else the
 * first `all` tag (the rest are checked per row), else the whole namespace.
 */
export function streamTags(filter: PreparedFilter): string[] {
  if (filter.tagsAny) return filter.tagsAny;
  if (filter.tagsAll) return [filter.tagsAll[0]!];
  return [''];
}

/** The rows of one stream in order, from the cursor on, bounded by the time range of the order field. */
export function orderedRows(
  db: MemoryDatabase,
  namespaceKey: string,
  tag: string,
  filter: PreparedFilter,
  order: Pick<PreparedList, 'orderBy' | 'order' | 'after'>,
): Collection<RecordRow> {
  const range = order.orderBy === 'createdAt' ? filter.created : filter.updated;
  const bounds = streamRange(streamPrefix(namespaceKey, tag), range?.from ?? 0, range?.to ?? Number.POSITIVE_INFINITY, order.order, order.after);
  const index = order.orderBy === 'createdAt' ? 'byCreated' : 'byUpdated';
  const collection = db.records.where(index).between(bounds.lower, bounds.upper, bounds.includeLower, bounds.includeUpper);
  return order.order === 'desc' ? collection.reverse() : collection;
}

/** Merges ordered streams into one ordered list without duplicates (a row may be in several tag streams). */
function mergeStreams(streams: RecordRow[][], keyOf: (row: RecordRow) => string, order: 'asc' | 'desc'): RecordRow[] {
  if (streams.length === 1) return streams[0]!;
  const byKey = new Map<string, RecordRow>();
  for (const stream of streams) for (const row of stream) byKey.set(keyOf(row), row);
  const keys = [...byKey.keys()].sort();
  if (order === 'desc') keys.reverse();
  return keys.map((k) => byKey.get(k)!);
}
