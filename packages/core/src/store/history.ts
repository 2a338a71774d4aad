import type { RecordVersion } from '../public/history.ts';
import type { RecordRow } from './row.ts';

/** Earlier versions one record keeps by default; older ones are dropped as new ones arrive. */
export const DEFAULT_HISTORY_DEPTH = 20;
/** Most earlier versions `historyDepth` may ask for. */
export const MAX_HISTORY_DEPTH = 1000;

/**
 * The row `next` that replaces `previous`, carrying the earlier versions plus `previous`
 * itself, changed by `changedBy` at `changedAt`. Versions live inside the record's own
 * row (not in a table of their own), so every path that deletes the row (each forget,
 * expiry, merge or replicated delete) deletes them in the same transaction.
 */
export function withHistory(next: RecordRow, previous: RecordRow, changedBy: string, changedAt: number, depth = DEFAULT_HISTORY_DEPTH): RecordRow {
  if (depth === 0) {
    const { history: _dropped, ...rest } = next;
    return rest;
  }
  const version: RecordVersion = {
    version: previous.version,
    content: previous.content,
    contentHash: previous.contentHash,
    source: previous.source,
    layer: previous.layer,
    tags: previous.tags,
    metadata: previous.metadata,
    importance: previous.importance,
    createdAt: previous.createdAt,
    updatedAt: previous.updatedAt,
    expiresAt: previous.expiresAt,
    mergedFrom: previous.mergedFrom ?? [],
    changedAt,
    changedBy,
  };
  return { ...next, history: [...(previous.history ?? []), version].slice(-depth) };
}

/** `next` keeping the earlier versions of `previous` (a change that is not a version of its own). */
export function keepHistory(next: RecordRow, previous: RecordRow): RecordRow {
  return previous.history ? { ...next, history: previous.history } : next;
}
