import type { Source, Layer, Tier, Namespace, JsonObject, TimeInput, Duration, MemoryRecord } from '../public/memory-record.ts';
import type { RedactionCount } from '../public/redaction.ts';
/** All {@link Source} values. */
export const SOURCES: readonly Source[] = ['user', 'assistant', 'tool', 'system', 'memory'];

/** All {@link Layer} values. */
export const LAYERS: readonly Layer[] = ['session', 'long_term', 'knowledge'];

/** All {@link Tier} values. */
export const TIERS: readonly Tier[] = ['hot', 'cold'];

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

/** One current fact of a namespace's profile (see `profile()`). */
export interface ProfileEntry {
  key: string;
  content: string;
  /** The record id of this version. */
  id: string;
  /** Since when it holds (epoch ms). */
  validFrom: number;
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

/** A partial change to a record. Fields left out stay as they are; `metadata` and `tags` are replaced whole. */
export interface UpdatePatch {
  content?: string;
  source?: Source;
  layer?: Layer;
  tags?: string[];
  metadata?: JsonObject;
  importance?: number;
  /** `null` removes the expiry. Give this or `ttl`, not both. */
  expiresAt?: TimeInput | null;
  /** New expiry relative to now. */
  ttl?: Duration;
}

/**
 * An earlier version of a record (see `history`): its state then, and who replaced it
 * with the next version and when.
 */
export interface RecordVersion {
  version: number;
  content: string;
  contentHash: string;
  source: Source;
  layer: Layer;
  tags: string[];
  metadata: JsonObject;
  importance: number;
  createdAt: number;
  updatedAt: number;
  expiresAt: number | null;
  mergedFrom: string[];
  /** When this version was replaced (epoch ms). */
  changedAt: number;
  /** Who replaced it: the actor of the update, consolidation or replicated change. */
  changedBy: string;
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
  failures: import('./errors.ts').ItemFailure[];
}

/** Options of `update`. */
export interface UpdateOptions extends WriteOptions {
  /** Refuse with CONFLICT unless the stored record has this version. */
  ifVersion?: number;
}

/** Per-namespace statistics (expired records not counted). */
export interface NamespaceStats {
  count: number;
  bySource: Record<Source, number>;
  byLayer: Record<Layer, number>;
  /** UTF-8 bytes of all contents. */
  contentBytes: number;
  oldestCreatedAt: number | null;
  newestCreatedAt: number | null;
  /** Records past their expiry that `sweep()` has not deleted yet (never returned by reads). */
  expiredPendingSweep: number;
  /** Live records per tag. */
  byTag: Record<string, number>;
}

/** The kinds of change the audit log records. */
export type AuditOp = 'remember' | 'update' | 'forget' | 'expire' | 'merge' | 'retier';

/** An audit log entry. It never holds content. */
export interface AuditEntry {
  /** Increasing sequence number, for paging. */
  seq: number;
  op: AuditOp;
  id: string;
  namespace: Namespace;
  at: number;
  actor: string;
  /** True when the change came from another replica through sync (`replicaOf(memory).apply`). */
  replicated?: true;
  /** Values the write's redaction masked or hashed, per detector (counts, never values). */
  redacted?: Record<string, number>;
}

/**
 * A record's state as replicas exchange it (for `@zeromem/sync`): the fields every replica
 * must agree on. The namespace travels apart (one shared document per namespace), the
 * content hash is recomputed on arrival, and access statistics stay on each device.
 */
export interface ReplicatedRecord {
  /** The record id, the same on every replica. */
  id: string;
  /** The text. */
  content: string;
  /** Who said it (see {@link Source}). */
  source: Source;
  /** Memory layer (see {@link Layer}). */
  layer: Layer;
  /** Tags, in order. */
  tags: string[];
  /** JSON metadata. */
  metadata: JsonObject;
  /** 0..1. A decay by `retier()` is not sent on its own; the next change of the record carries it. */
  importance: number;
  /** Epoch ms of the first write: with the id, it names one incarnation of the record. */
  createdAt: number;
  /** Epoch ms of the last change: the merge compares it first (the newer state wins). */
  updatedAt: number;
  /** Epoch ms after which the record expires, or null. */
  expiresAt: number | null;
  /** Counts changes from 1: the merge compares it when `updatedAt` is equal. */
  version: number;
  /** Ids consolidation merged into this record (its provenance travels with it). */
  mergedFrom: string[];
  /** The fact key, or null for an unkeyed memory. */
  key: string | null;
  /** Keyed facts: from when it holds. */
  validFrom: number | null;
  /**
   * Keyed facts: the end its writer stated, or null. The end a later version gives is not
   * sent: every replica derives it from the versions it holds (the same rule everywhere).
   */
  statedUntil: number | null;
}

/** One change from another replica: a record state to hold, or a record to forget. */
export type ReplicatedChange = { put: ReplicatedRecord } | { delete: string };

/** What a replica's `apply` (`replicaOf(memory).apply`, `@zeromem/core/internal`) did. */
export interface ApplyReplicatedResult {
  /**
   * True when a local change the caller has not seen yet (an audit entry after `after`)
   * is in the namespace: nothing was applied; read the audit log and call again.
   */
  stale: boolean;
  /** Records written (new or changed). */
  written: MemoryRecord[];
  /** Ids deleted. */
  deleted: string[];
  /** Changes that failed validation, by position; nothing of them was written. */
  rejected: import('./errors.ts').ItemFailure[];
  /** The namespace's last audit seq after the call. */
  lastSeq: number;
  /** With the `docLog` option: how many updates the room's document log holds after the call. */
  docLogSize?: number;
}

