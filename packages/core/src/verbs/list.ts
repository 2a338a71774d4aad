import { requireNamespace } from '../model/namespace.ts';
import type { ListPage } from '../public/list.ts';
import type { Layer } from '../public/memory-record.ts';
import type { PreparedFilter } from '../model/validate-filter.ts';
import { encodeCursor, validateListOptions, type PreparedList } from '../model/validate-filter.ts';
import { matchesFilter } from '../store/match.ts';
import type { OrderedQuery } from '../store/port.ts';
import { fromRow, type RecordRow } from '../store/row.ts';
import { parsePosition, position } from '../store/sort-keys.ts';
import type { VerbContext } from '../write/verb-context.ts';

/**
 * A page of live records in a namespace, newest first unless told otherwise, filtered by
 * tags, metadata, source, layer and time. Pass `nextCursor` back as `cursor` for the next page.
 */
export async function list(ctx: VerbContext, namespace: unknown, options?: unknown): Promise<ListPage> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const now = ctx.clock.now();
  const query = validateListOptions(options, ctx.limits, ns.key, now);
  return ctx.store.read(async (tx) => {
    const accept = (row: RecordRow) => matchesFilter(row, query, now);
    const field = query.orderBy;
    const keyOf = (row: RecordRow) => position(row[field], row.id);
    // One fact key's versions come from the [ns, key] index, not a scan of the namespace.
    const merged =
      query.key === undefined
        ? mergeStreams(await Promise.all(scanStreams(query).map((stream) => tx.orderedRecords(streamQuery(ns.key, stream, query, query), accept, query.limit + 1))), keyOf, query.order)
        : pageOfKey(await tx.recordsByKey(ns.key, query.key), accept, keyOf, query);
    const page = merged.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      items: page.map(fromRow),
      nextCursor: merged.length > query.limit && last ? encodeCursor(position(last[field], last.id), query.orderBy, query.order, query.listKey) : null,
    };
  });
}

/** The rows of one fact key that pass `accept`, in the list's order, after its cursor, at most `limit + 1`. */
function pageOfKey(rows: RecordRow[], accept: (row: RecordRow) => boolean, keyOf: (row: RecordRow) => string, query: Pick<PreparedList, 'order' | 'after' | 'limit'>): RecordRow[] {
  const sign = query.order === 'asc' ? 1 : -1;
  const after = query.after;
  return rows
    .filter((row) => accept(row) && (after === undefined || sign * (keyOf(row) < after ? -1 : keyOf(row) > after ? 1 : 0) > 0))
    .sort((a, b) => sign * (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0))
    .slice(0, query.limit + 1);
}

/** One ordered scan of a namespace: a sort-key stream (the whole namespace, `tag` '', or one tag), or one layer's index. */
export type Stream = { tag: string } | { layer: Layer };

/**
 * Which streams to scan: one per `any` tag (their union is the answer), else the first
 * `all` tag (the rest are checked per row), else one per filtered layer, else the whole
 * namespace. A layer's own index means a list of rare session turns does not walk every
 * other record.
 */
export function scanStreams(filter: PreparedFilter): Stream[] {
  if (filter.tagsAny) return filter.tagsAny.map((tag) => ({ tag }));
  if (filter.tagsAll) return [{ tag: filter.tagsAll[0]! }];
  if (filter.layers) return [...filter.layers].map((layer) => ({ layer }));
  return [{ tag: '' }];
}

/** The ordered query of one stream: its rows from the cursor on, bounded by the time range of the order field. */
export function streamQuery(
  namespaceKey: string,
  stream: Stream,
  filter: PreparedFilter,
  order: Pick<PreparedList, 'orderBy' | 'order' | 'after'>,
): OrderedQuery {
  const range = order.orderBy === 'createdAt' ? filter.created : filter.updated;
  return {
    ns: namespaceKey,
    orderBy: order.orderBy,
    order: order.order,
    ...('layer' in stream ? { layer: stream.layer } : stream.tag === '' ? {} : { tag: stream.tag }),
    ...(range?.from === undefined ? {} : { from: range.from }),
    ...(range?.to === undefined ? {} : { to: range.to }),
    ...(order.after === undefined ? {} : { after: parsePosition(order.after) }),
  };
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
