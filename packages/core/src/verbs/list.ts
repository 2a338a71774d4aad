import { Dexie, type Collection } from 'dexie';
import { requireNamespace } from '../model/namespace.ts';
import type { Layer, ListPage } from '../model/types.ts';
import type { PreparedFilter } from '../model/validate-filter.ts';
import { encodeCursor, validateListOptions, type PreparedList } from '../model/validate-filter.ts';
import type { MemoryDatabase } from '../store/database.ts';
import { matchesFilter } from '../store/match.ts';
import { fromRow, type RecordRow } from '../store/row.ts';
import { parsePosition, position, streamPrefix, streamRange } from '../store/sort-keys.ts';
import { withStorage } from '../store/storage-errors.ts';
import type { VerbContext } from '../write/context.ts';

/**
 * A page of live records in a namespace, newest first unless told otherwise, filtered by
 * tags, metadata, source, layer and time. Pass `nextCursor` back as `cursor` for the next page.
 */
export async function list(ctx: VerbContext, namespace: unknown, options?: unknown): Promise<ListPage> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const now = ctx.clock.now();
  const query = validateListOptions(options, ctx.limits, ns.key, now);
  return withStorage(async () => {
    const streams = await Promise.all(
      scanStreams(query).map((stream) => orderedRows(ctx.db, ns.key, stream, query, query).filter((row) => matchesFilter(row, query, now)).limit(query.limit + 1).toArray()),
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

/** The rows of one stream in order, from the cursor on, bounded by the time range of the order field. */
export function orderedRows(
  db: MemoryDatabase,
  namespaceKey: string,
  stream: Stream,
  filter: PreparedFilter,
  order: Pick<PreparedList, 'orderBy' | 'order' | 'after'>,
): Collection<RecordRow> {
  const range = order.orderBy === 'createdAt' ? filter.created : filter.updated;
  const from = range?.from ?? 0;
  const to = range?.to ?? Number.POSITIVE_INFINITY;
  let collection: Collection<RecordRow>;
  if ('layer' in stream) {
    const bounds = layerRange(namespaceKey, stream.layer, from, to, order.order, order.after);
    const index = order.orderBy === 'createdAt' ? '[ns+layer+createdAt+id]' : '[ns+layer+updatedAt+id]';
    collection = db.records.where(index).between(bounds.lower, bounds.upper, bounds.includeLower, bounds.includeUpper);
  } else {
    const bounds = streamRange(streamPrefix(namespaceKey, stream.tag), from, to, order.order, order.after);
    const index = order.orderBy === 'createdAt' ? 'byCreated' : 'byUpdated';
    collection = db.records.where(index).between(bounds.lower, bounds.upper, bounds.includeLower, bounds.includeUpper);
  }
  return order.order === 'desc' ? collection.reverse() : collection;
}

/** The key range of one layer's index between two times (`to` exclusive), excluding the position `after`. */
function layerRange(namespaceKey: string, layer: Layer, from: number, to: number, order: 'asc' | 'desc', after: string | undefined) {
  let lower: unknown[] = [namespaceKey, layer, from, Dexie.minKey];
  let upper: unknown[] = Number.isFinite(to) ? [namespaceKey, layer, to, Dexie.minKey] : [namespaceKey, layer, Dexie.maxKey];
  let includeLower = true;
  let includeUpper = false;
  if (after !== undefined) {
    const { time, id } = parsePosition(after);
    if (order === 'asc' && time >= from) {
      lower = [namespaceKey, layer, time, id];
      includeLower = false;
    }
    if (order === 'desc' && time < to) {
      upper = [namespaceKey, layer, time, id];
      includeUpper = false;
    }
  }
  return { lower, upper, includeLower, includeUpper };
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
