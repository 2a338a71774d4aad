// `remember` and `rememberMany`: what they take, their options, what they return.

import type { Duration, JsonObject, Layer, MemoryRecord, Namespace, Source, TimeInput } from './memory-record.ts';
import type { ItemFailure } from './errors.ts';
import type { RedactionCount } from './redaction.ts';

/** What `remember` takes. Only `namespace` and `content` are required. */
export interface RememberInput {
  namespace: Namespace;
  content: string;
  /** Your own id (letters, digits, `_ - . :`, at most 128); a ULID otherwise. */
  id?: string;
  /** Default `"user"`. */
  source?: Source;
  /** Default `"long_term"`. */
  layer?: Layer;
  tags?: string[];
  metadata?: JsonObject;
  /** 0..1, default 0.5. */
  importance?: number;
  /** For imports: when it really happened. Defaults to now. */
  createdAt?: TimeInput;
  /** Absolute expiry. Give this or `ttl`, not both. */
  expiresAt?: TimeInput;
  /** Expiry relative to now (or to `createdAt` when given). */
  ttl?: Duration;
  /**
   * Makes this memory a keyed fact: a dotted key such as `contact.channel` (segments of
   * `a-z`, `0-9`, `_`, `-`, joined by `.`, at most 128 bytes). The new fact closes the
   * version of the key that held until now, in the same transaction.
   */
  key?: string;
  /** Keyed facts only: from when the fact holds. Default: `createdAt`. Earlier than the current version's: a backdated version, closed by the next one. */
  validFrom?: TimeInput;
  /** Keyed facts only: when the fact stopped holding, for facts learned late (after `validFrom`). */
  validUntil?: TimeInput;
}

/**
 * An unkeyed memory that looks like a new value of a live one: near-duplicate by the
 * consolidation measure, but differing in a number, date, name or negation. Nothing is
 * closed on a guess: confirm it by writing the fact with a key, or `update` / `forget`.
 */
export interface SuggestedUpdate {
  /** The live memory this one may replace. */
  id: string;
  /** Why, in a sentence. */
  reason: string;
  /** What differs: `number`, `date`, `name`, `negation`. */
  differs: Array<'number' | 'date' | 'name' | 'negation'>;
}

/** What `remember` returns. */
export interface RememberResult {
  id: string;
  /** True when an equal record already existed and no new one was created. */
  deduplicated: boolean;
  record: MemoryRecord;
  /** With `redaction` on: what was masked or hashed before storing (absent when nothing was). */
  redacted?: RedactionCount[];
  /** Keyed facts: the ids of the versions this write closed (empty otherwise). */
  closed: string[];
  /** Unkeyed writes with `suggestUpdates: true`: live memories this one may be a new value of (empty when none or not asked). */
  suggestedUpdates: SuggestedUpdate[];
}

/** Per-call options of writes. */
export interface WriteOptions {
  /** Who is acting, for the audit log. Defaults to the memory's `actor`. */
  actor?: string;
}

/** Options of `remember`. */
export interface RememberOptions extends WriteOptions {
  /**
   * Look for live memories this unkeyed one may be a new value of (`suggestedUpdates` of the
   * result). Default false: the look-up reads the namespace's search index (loading it on a
   * process's first write) and triples a write's cost; `consolidate()` reports the same
   * suggestions for a whole namespace.
   */
  suggestUpdates?: boolean;
  /**
   * Keyed facts only: a compare-and-set on the key. The write is refused with CONFLICT
   * (`details.existingId`: the latest version) unless the key's latest version, by
   * (validFrom, id), is this record id; `null`: unless the key has no version yet. Read
   * the key's versions (`list(namespace, { key, includeClosed: true })`), then write with
   * the id you based the new text on: of two writers that read the same version, one is told.
   * `{ id, version }` also refuses when that record was changed in place (`update()` raises
   * its `version`) since you read it (`details.currentVersion` says its version now).
   */
  ifLatest?: string | null | LatestVersion;
}

/** A keyed fact's version as read: its record id and its `version` (see `ifLatest`). */
export interface LatestVersion {
  id: string;
  version: number;
}

/** Options of `rememberMany`. */
export interface RememberManyOptions extends WriteOptions {
  /** Write the valid items and report the invalid ones instead of rejecting the whole batch. */
  skipInvalid?: boolean;
  /** Called as the batch is staged (nothing is durable before the promise resolves). */
  onProgress?: (progress: { done: number; total: number }) => void;
}

/** What `rememberMany` returns. */
export interface RememberManyResult {
  /** One per written (or deduplicated) item, in input order, each with its input position. */
  results: Array<RememberResult & { index: number }>;
  /** Only with `skipInvalid`: the items that were not written. */
  failures: ItemFailure[];
}
