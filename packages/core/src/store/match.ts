import { canonicalJson } from '../model/canonical-json.ts';
import type { PreparedFilter } from '../model/validate-filter.ts';
import type { MemoryRecord } from '../public/memory-record.ts';
import { isValidAt } from '../model/validity.ts';
import { isExpired, type RecordRow } from './row.ts';

/** True when a live (unexpired) row passes every part of the filter. */
export function matchesFilter(row: MemoryRecord | RecordRow, filter: PreparedFilter, now: number): boolean {
  if (isExpired(row, now)) return false;
  if (filter.sources && !filter.sources.has(row.source)) return false;
  if (filter.layers && !filter.layers.has(row.layer)) return false;
  if (filter.created && (row.createdAt < filter.created.from || row.createdAt >= filter.created.to)) return false;
  if (filter.updated && (row.updatedAt < filter.updated.from || row.updatedAt >= filter.updated.to)) return false;
  if (filter.tagsAny && !filter.tagsAny.some((tag) => row.tags.includes(tag))) return false;
  if (filter.tagsAll && !filter.tagsAll.every((tag) => row.tags.includes(tag))) return false;
  if (filter.metadata) {
    for (const [key, expected] of filter.metadata) {
      if (!Object.hasOwn(row.metadata, key) || canonicalJson(row.metadata[key]) !== expected) return false;
    }
  }
  if (filter.where && !filter.where(row.metadata)) return false;
  if (filter.key !== undefined && (row.key ?? null) !== filter.key) return false;
  if (filter.validAt !== undefined && !isValidAt(row, filter.validAt)) return false;
  return true;
}

/** True when the filter has no condition on the records themselves (the time keyed facts must hold at is no condition here). */
export function isEmptyFilter(filter: PreparedFilter): boolean {
  return !(
    filter.sources ||
    filter.layers ||
    filter.created ||
    filter.updated ||
    filter.tagsAny ||
    filter.tagsAll ||
    filter.metadata ||
    filter.where ||
    filter.key !== undefined
  );
}
