import type { RecordVersion } from '../public/history.ts';
import type { MemoryRecord } from '../public/memory-record.ts';
import { sortKeys } from './sort-keys.ts';

/** The keyed-fact fields of a record: absent from the rows of unkeyed records (see {@link toRow}). */
type FactFields = 'key' | 'validFrom' | 'validUntil' | 'closedBy' | 'statedUntil';

/** A record as stored: the record plus the fields its indexes need. */
export interface RecordRow extends Omit<MemoryRecord, FactFields>, Partial<Pick<MemoryRecord, FactFields>> {
  /** Namespace key (duplicated from `namespaceKey` for a short index name). */
  ns: string;
  userId: string;
  /** Sort keys for `orderBy: createdAt`, see sort-keys.ts: the Dexie engine's index, added by it ({@link withSortKeys}). */
  byCreated?: string[];
  /** Sort keys for `orderBy: updatedAt`. */
  byUpdated?: string[];
  /** Time up to which importance decay has been applied (lifecycle/importance.ts); absent until `retier()` ran. */
  decayedAt?: number;
  /** Earlier versions, oldest first (store/history.ts); absent until the record first changed. */
  history?: RecordVersion[];
}

/**
 * The row to store for a record. An unkeyed record's row holds none of the keyed-fact
 * fields (`key`, `validFrom`, `validUntil`, `closedBy`, `statedUntil`; {@link fromRow}
 * reads them as null), so it is in no `[ns, key]` index (see `recordsByKey`).
 */
export function toRow(record: MemoryRecord): RecordRow {
  const { key, validFrom, validUntil, closedBy, statedUntil, ...rest } = record;
  const fact = key === null ? {} : { key, validFrom, validUntil, closedBy, statedUntil };
  return {
    ...rest,
    ...fact,
    ns: record.namespaceKey,
    userId: record.namespace.userId,
  };
}

/**
 * The row with the sort keys of the Dexie engine's ordered indexes (the SQLite engine
 * orders by its columns and never stores them: computed for every write, they cost it ~5%
 * of a `rememberMany`).
 */
export function withSortKeys(row: RecordRow): RecordRow {
  return {
    ...row,
    byCreated: sortKeys(row.namespaceKey, row.tags, row.createdAt, row.id),
    byUpdated: sortKeys(row.namespaceKey, row.tags, row.updatedAt, row.id),
  };
}

/** The public record of a stored row (index fields removed). */
export function fromRow(row: RecordRow): MemoryRecord {
  return {
    id: row.id,
    namespace: row.namespace,
    namespaceKey: row.namespaceKey,
    content: row.content,
    source: row.source,
    layer: row.layer,
    tags: row.tags,
    metadata: row.metadata,
    importance: row.importance,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    expiresAt: row.expiresAt,
    accessCount: row.accessCount,
    lastAccessedAt: row.lastAccessedAt,
    contentHash: row.contentHash,
    version: row.version,
    // Rows written before tiers and consolidation existed have neither field.
    tier: row.tier ?? 'hot',
    mergedFrom: row.mergedFrom ?? [],
    // Rows written before keyed facts existed are unkeyed.
    key: row.key ?? null,
    validFrom: row.validFrom ?? null,
    validUntil: row.validUntil ?? null,
    closedBy: row.closedBy ?? null,
    statedUntil: row.statedUntil ?? null,
  };
}

/** True when the record has expired at `now`: expired records are never returned. */
export function isExpired(row: { expiresAt: number | null }, now: number): boolean {
  return row.expiresAt !== null && row.expiresAt <= now;
}
