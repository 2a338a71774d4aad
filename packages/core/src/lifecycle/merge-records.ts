import type { MemoryRecord } from '../public/memory-record.ts';

/** Newest first: the record whose content was written last leads. */
function newestFirst(a: MemoryRecord, b: MemoryRecord): number {
  return b.updatedAt - a.updatedAt || b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/**
 * The record a group of near-duplicates becomes: the newest record (its id, content,
 * source, layer, metadata and creation time) with the highest importance, the union of
 * all tags (the newest's first, at most `maxTags`), the latest expiry (none if any has
 * none), summed access counts, hot if any member is, and `mergedFrom` listing every
 * merged-away id (and what they had merged before). `updatedAt` moves to `now`, `version` + 1.
 */
export function mergeRecords(members: readonly MemoryRecord[], now: number, maxTags: number): { keep: MemoryRecord; merged: MemoryRecord[]; record: MemoryRecord } {
  const [keep, ...others] = [...members].sort(newestFirst);
  const all = [keep!, ...others];
  const tags = [...new Set(all.flatMap((r) => r.tags))].slice(0, maxTags);
  const mergedFrom = [...new Set([...keep!.mergedFrom, ...others.flatMap((r) => [...r.mergedFrom, r.id])])];
  const accessed = all.map((r) => r.lastAccessedAt).filter((t): t is number => t !== null);
  const record: MemoryRecord = {
    ...keep!,
    tags,
    mergedFrom,
    importance: Math.max(...all.map((r) => r.importance)),
    expiresAt: all.some((r) => r.expiresAt === null) ? null : Math.max(...all.map((r) => r.expiresAt!)),
    accessCount: all.reduce((sum, r) => sum + r.accessCount, 0),
    lastAccessedAt: accessed.length ? Math.max(...accessed) : null,
    tier: all.some((r) => r.tier === 'hot') ? 'hot' : 'cold',
    updatedAt: Math.max(now, keep!.updatedAt),
    version: keep!.version + 1,
  };
  return { keep: keep!, merged: others, record };
}
