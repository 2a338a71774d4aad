// Filters shared by `list`, `count` and `forgetWhere`, and `list`'s options and pages.

import type { JsonObject, Layer, MemoryRecord, Source, TimeInput } from './memory-record.ts';
import type { MetadataQuery } from './metadata-query.ts';
import type { ValidityOptions } from './validity.ts';

/** Filters shared by `list`, `count` and `forgetWhere`. Every given filter must match. */
export interface RecordFilter {
  /** `any`: at least one of these tags; `all`: every one of them. */
  tags?: { any?: string[]; all?: string[] };
  /** Top-level metadata keys that must equal these values (deep equality). */
  metadata?: JsonObject;
  /** A query on metadata with operators and `and` / `or` / `not`; see {@link MetadataQuery}. */
  where?: MetadataQuery;
  source?: Source | Source[];
  layer?: Layer | Layer[];
  /** `from` inclusive, `to` exclusive. */
  createdAt?: { from?: TimeInput; to?: TimeInput };
  /** `from` inclusive, `to` exclusive. */
  updatedAt?: { from?: TimeInput; to?: TimeInput };
  /** Only the versions of this fact key (every version, for `forgetWhere`). */
  key?: string;
}

/** Options of `list`. */
export interface ListOptions extends RecordFilter, ValidityOptions {
  /** Default `"createdAt"`. */
  orderBy?: 'createdAt' | 'updatedAt';
  /** Default `"desc"` (newest first). */
  order?: 'asc' | 'desc';
  /** 1..1000, default 50. */
  limit?: number;
  /** `nextCursor` of the previous page, with the same `orderBy` and `order`. */
  cursor?: string;
}

/** A page of `list`. */
export interface ListPage {
  items: MemoryRecord[];
  /** Pass as `cursor` for the next page; `null` when this was the last. */
  nextCursor: string | null;
}
