// A stored memory and the values it is made of: namespace, source, layer, tier, JSON metadata,
// times and durations.

/** Who produced a memory. */
export type Source = 'user' | 'assistant' | 'tool' | 'system' | 'memory';

/** Which context layer a memory feeds. */
export type Layer = 'session' | 'long_term' | 'knowledge';

/** Storage tier: `hot` records are recalled; `cold` ones (long unused, unimportant) only with `includeCold`. */
export type Tier = 'hot' | 'cold';

/** A JSON value: what `metadata` may hold (no `undefined`, `NaN`, `Infinity`, functions, cycles). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * Where a record lives. `{ userId }` is the user's own namespace; adding `agentId`
 * makes an agent-private one; `scope` separates further (a project, a thread).
 * Namespaces are isolated: nothing is ever read or written across them.
 */
export interface Namespace {
  userId: string;
  agentId?: string;
  scope?: string;
}

/** A point in time: epoch milliseconds, a `Date`, or an ISO 8601 string; from 0 to 8.64e15 (the range of a `Date`). */
export type TimeInput = number | Date | string;

/**
 * A duration: milliseconds, or a string such as `"90s"`, `"30m"`, `"2d"`, `"1h30m"`, `"1w"`;
 * rounded to whole milliseconds. As a `ttl`, it must end within the range of a `Date`.
 */
export type Duration = number | string;

/** A stored memory, as every read returns it. Times are epoch milliseconds. */
export interface MemoryRecord {
  /** ULID unless the caller chose the id; unique within its namespace. */
  id: string;
  namespace: Namespace;
  /** The stable string key the namespace resolves to. */
  namespaceKey: string;
  content: string;
  source: Source;
  layer: Layer;
  tags: string[];
  metadata: JsonObject;
  /** 0..1, default 0.5. */
  importance: number;
  createdAt: number;
  updatedAt: number;
  /** Absolute expiry, or `null` for never. */
  expiresAt: number | null;
  accessCount: number;
  lastAccessedAt: number | null;
  /** SHA-256 (hex) of the normalized content; equal hashes in one namespace are duplicates. */
  contentHash: string;
  /** Starts at 1, grows by one with every change; pass it as `ifVersion` for optimistic concurrency. */
  version: number;
  /** `hot` unless `retier()` moved it to `cold` (then recall skips it unless `includeCold`). */
  tier: Tier;
  /** Ids of the records `consolidate()` merged into this one; empty otherwise. */
  mergedFrom: string[];
  /**
   * The fact's key (`contact.channel`) when it was written as a keyed fact, else `null`.
   * The versions of one key in a namespace follow each other in time: see {@link validFrom}.
   */
  key: string | null;
  /** Keyed facts: from when the fact holds (epoch ms); `null` for unkeyed memories. */
  validFrom: number | null;
  /**
   * Keyed facts: until when the fact held (exclusive), `null` while it still holds. Derived:
   * the next version's `validFrom`, or the end its writer stated, whichever is earlier.
   */
  validUntil: number | null;
  /** Keyed facts: the id of the version that closed this one, `null` while open (or ended by its stated end). */
  closedBy: string | null;
  /** Keyed facts: the end its writer stated (`validUntil` on remember), or `null`; what `validUntil` is derived from with the next version. */
  statedUntil: number | null;
}
