import type { AuditEntry } from '../public/audit.ts';
import type { Layer, Namespace } from '../public/memory-record.ts';
import type { RecordRow } from './row.ts';

/**
 * The storage port: the reads and writes core's verbs, lifecycle jobs, indexes and queues
 * make, in storage terms. Every engine implements it: Dexie over IndexedDB (browsers,
 * Electron's renderer, tests), SQLite in Node; a PostgreSQL engine would be a third.
 * Nothing above the port knows which engine it runs on.
 *
 * Rules every engine keeps:
 * - Everything is async; values handed in and out are plain data (structured-cloneable:
 *   `Float32Array` and snapshot typed arrays included). A row handed out is the caller's
 *   to change; changing it changes nothing stored until it is put.
 * - A `write` is all or nothing: when its function throws (or a storage operation fails)
 *   nothing of it is stored, and the error reaches the caller. Writes may be serialized
 *   (one at a time); reads see a consistent state (no write half applied).
 * - Failures are coded `ZeromemError`s: QUOTA_EXCEEDED (storage full), CLOSED (after
 *   `close()`), STORAGE_FAILED (anything else, the engine's error as `details.cause`). A
 *   `ZeromemError` thrown by the caller's function passes through unchanged.
 * - Inside `read`/`write`, only the given transaction is used: no nested `read`/`write`,
 *   and no waiting on anything but the transaction's own methods (an IndexedDB transaction
 *   commits as soon as it has no request left).
 */
export interface StoragePort {
  /** The store's name (the database name the memory was opened with). */
  readonly name: string;
  /** Runs `fn` in a read-only transaction and resolves with its result. */
  read<T>(fn: (tx: ReadTransaction) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` in a read-write transaction; resolves with its result once committed. All or
   * nothing. An engine may run `fn` again after an attempt that wrote nothing (the SQLite
   * engine reruns deletions on a full disk), so `fn` acts only through `tx`.
   */
  write<T>(fn: (tx: WriteTransaction) => Promise<T>, options?: WriteOptions): Promise<T>;
  /**
   * Runs `query` now and again after every committed write (of this process, and where the
   * engine can see them, of other processes or tabs) that may change its result, handing
   * each result to `observer.next` (a failed run to `observer.error`). `query` reads this
   * store through `read` only. Returns the function that stops observing.
   */
  observe<T>(query: () => Promise<T>, observer: { next: (value: T) => void; error: (err: unknown) => void }): () => void;
  /**
   * Calls `listener` after each committed write that appended to the audit log: this
   * process's, and where the engine can see them, other processes' or tabs'. Returns the
   * function that stops it.
   */
  onAuditWrites(listener: () => void): () => void;
  /**
   * Closes the store. Later calls fail with CLOSED; a transaction running now finishes
   * first. An engine whose close has to wait (a connection pool) returns a promise.
   */
  close(): void | Promise<void>;
}

/** Options of {@link StoragePort.write}. */
export interface WriteOptions {
  /**
   * `false`: the commit survives a crash of the process but need not survive a power cut
   * (the SQLite engine does not sync the file for it; an engine that cannot tell ignores
   * it). Only for state a durable copy elsewhere gives back: a replica's changes applied
   * from the relay (which stored them before sending them) and the shared document's log.
   * Commits stay in order: a later synced commit makes the earlier ones durable too, so a
   * power cut loses only commits after the last synced one. Default `true`.
   */
  durable?: boolean;
}

/** A record's primary key: namespace key and id (ids are unique per namespace). */
export type RecordKey = readonly [ns: string, id: string];

/** The reads of a transaction. */
export interface ReadTransaction {
  // --- records ---

  /** The rows of these keys, in the order of `keys`; `undefined` where there is none. Expired rows are returned too. */
  getRecords(keys: readonly RecordKey[]): Promise<Array<RecordRow | undefined>>;
  /**
   * Rows of one namespace in id order (code-unit order, as JavaScript compares strings),
   * starting after id `after` (all without it), at most `limit` (all without it).
   */
  namespaceRecords(ns: string, page?: { after?: string | undefined; limit?: number | undefined }): Promise<RecordRow[]>;
  /**
   * Rows of every namespace in key order (namespace key, then id), starting after the key
   * `after`, at most `limit`. Maintenance passes over the whole store page with it.
   */
  allRecords(page: { after?: RecordKey | undefined; limit: number }): Promise<RecordRow[]>;
  /** Every row of this user, in all of their namespaces (`row.userId`), in key order. */
  userRecords(userId: string): Promise<RecordRow[]>;
  /**
   * The rows holding these [namespace key, content hash] pairs (several per pair can exist:
   * an expired twin next to a live one). Pairs in no promised order; one pair's rows in id order.
   */
  recordsByContentHash(keys: readonly (readonly [ns: string, contentHash: string])[]): Promise<RecordRow[]>;
  /** Those of these content hashes that a record of any namespace holds (their embeddings are still needed). */
  contentHashesInUse(contentHashes: readonly string[]): Promise<Set<string>>;
  /** The key and content hash of every record of the store, in no promised order (the embedding backfill). */
  recordHashes(): Promise<Array<{ ns: string; id: string; contentHash: string }>>;
  /** Rows of any namespace whose `expiresAt` is at or before `now`, at most `limit`, in expiry order. */
  expiredRecords(now: number, limit: number): Promise<RecordRow[]>;
  /** How many rows the namespace holds, expired ones included; every namespace's without `ns`. */
  countRecords(ns?: string): Promise<number>;
  /** How many rows of the namespace have expired at `now` (`expiresAt` at or before it). */
  countExpired(ns: string, now: number): Promise<number>;
  /**
   * Rows of one namespace ordered by a time field, then id (see {@link OrderedQuery}),
   * that `accept` keeps (all without it), at most `limit` of the accepted (all without it).
   * Engines stop reading once `limit` rows were accepted.
   */
  orderedRecords(query: OrderedQuery, accept?: (row: RecordRow) => boolean, limit?: number): Promise<RecordRow[]>;
  /** The rows of the keyed fact `key` in the namespace (its versions, current and closed), in id order. Rows without a key are never returned. */
  recordsByKey(ns: string, key: string): Promise<RecordRow[]>;
  /**
   * Every keyed row of the namespace (all versions of all its keys), in (key, id) order: the
   * profile and the count of facts not valid now read them. Rows without a key are never returned.
   */
  keyedRecords(ns: string): Promise<RecordRow[]>;
  /**
   * The smallest namespace key that holds a row and lies in `range` (`from` inclusive unless
   * `fromExclusive`, `to` inclusive), with that namespace; undefined when there is none.
   * Listing namespaces jumps from one to the next with it.
   */
  firstNamespace(range: { from: string; fromExclusive?: boolean; to: string }): Promise<{ ns: string; namespace: Namespace } | undefined>;

  // --- audit log ---

  /**
   * The namespace's audit rows with `seq` above `after`, in `seq` order, at most `limit` (all
   * without it); with `localOnly`, only rows not applied from another replica (`replicated` unset).
   */
  auditAfter(ns: string, after: number, options?: { limit?: number | undefined; localOnly?: boolean | undefined }): Promise<AuditRow[]>;
  /** The highest audit `seq` of the namespace, 0 when it has none. */
  lastAuditSeq(ns: string): Promise<number>;

  // --- vectors ---

  /** The stored vectors of these content hashes for `model`, in the order of `hashes`; `undefined` where there is none. */
  getVectors(model: string, hashes: readonly string[]): Promise<Array<VectorRow | undefined>>;
  /** How many vectors are stored for `model`. */
  countVectors(model: string): Promise<number>;
  /** The content hashes with a vector stored for `model`, in no promised order. */
  vectorHashes(model: string): Promise<string[]>;

  // --- index snapshots ---

  /** The namespace's stored index snapshot, or undefined. */
  getSnapshot(ns: string): Promise<StoredSnapshot | undefined>;

  // --- document logs ---

  /** The document log of `room` (see {@link DocLog}); no updates and no cursor for a room never stored. */
  getDocLog(room: string): Promise<DocLog>;
}

/** The writes of a read-write transaction (and every read). */
export interface WriteTransaction extends ReadTransaction {
  /** Stores these rows, replacing a row of the same key. */
  putRecords(rows: readonly RecordRow[]): Promise<void>;
  /** Deletes the rows of these keys (missing ones are no error). */
  deleteRecords(keys: readonly RecordKey[]): Promise<void>;
  /** Appends audit rows (their `seq` is ignored) and resolves with the sequence numbers given to them, ascending, in order. */
  appendAudit(rows: readonly AuditRow[]): Promise<number[]>;
  /** Stores these vectors, replacing one of the same [model, hash]. */
  putVectors(rows: readonly VectorRow[]): Promise<void>;
  /** Deletes the vectors of this content hash, of every model. */
  deleteVectors(contentHash: string): Promise<void>;
  /** Stores the namespace's index snapshot (keyed by `row.ns`), replacing the one there. */
  putSnapshot(row: StoredSnapshot): Promise<void>;
  /** Deletes the index snapshots of these namespaces and their access-statistics rows ({@link heatKey}; missing ones are no error). */
  deleteSnapshots(namespaceKeys: Iterable<string>): Promise<void>;
  /**
   * Appends `updates` to the document log of `room`, after its others, and sets its cursor
   * when `cursor` is given; resolves with how many updates the log holds now.
   */
  appendDocLog(room: string, updates: readonly Uint8Array[], cursor?: number): Promise<number>;
  /**
   * Replaces every update of the document log of `room` with `update` (compaction; the
   * cursor stays). The replaced updates are deleted as a forgotten record is: on SQLite
   * their bytes leave the file and its WAL before the write resolves.
   */
  compactDocLog(room: string, update: Uint8Array): Promise<void>;
}

/**
 * A room's document log: what @zeromem/sync keeps of a shared namespace's document on the
 * device, in the memory's own store (one file per memory in Node), opaque to the store:
 * the document's updates in the order they were appended, and the audit cursor sync
 * stored with them (the last audit seq of the namespace whose change the document holds).
 */
export interface DocLog {
  updates: Uint8Array[];
  cursor: number | undefined;
}

/**
 * An ordered page of one namespace: its rows ordered by `orderBy` (then id; `desc` reverses
 * both), restricted to one stream: every row, the rows carrying `tag`, or the rows of
 * `layer` (not both). `from` (inclusive) and `to` (exclusive) bound the `orderBy` time;
 * `after` is the position of the last row of the previous page: only rows past it in the
 * order are returned (after it for `asc`, before it for `desc`). An engine with SQL
 * indexes answers it from an index on (ns, orderBy, id), (ns, layer, orderBy, id) and a tag
 * table; the Dexie engine uses its sort-key indexes (store/sort-keys.ts).
 */
export interface OrderedQuery {
  ns: string;
  orderBy: 'createdAt' | 'updatedAt';
  order: 'asc' | 'desc';
  /** Only rows whose `tags` hold this tag. */
  tag?: string;
  /** Only rows of this layer. */
  layer?: Layer;
  /** Lowest `orderBy` time, inclusive. Default: none. */
  from?: number;
  /** Highest `orderBy` time, exclusive. Default: none. */
  to?: number;
  /** Position after which the page starts (in the page's order). */
  after?: { time: number; id: string };
}

/** An audit row: the public `AuditEntry` as the store keeps it (under its namespace key, `seq` given on append). It never holds content or its hash. */
export interface AuditRow extends Omit<AuditEntry, 'seq'> {
  /** Sequence number, given by the store on append: ascending over the whole store, across processes. */
  seq?: number;
  /** The namespace's key (`namespaceKey`), which the log is kept and read by. */
  ns: string;
}

/** A stored embedding, shared by every record with the same content hash. */
export interface VectorRow {
  /** The embedder's model id. */
  model: string;
  /** Content hash of the embedded text. */
  hash: string;
  /** Unit vector, or `null` when the model could not embed the text (found lexically only). */
  vector: Float32Array | null;
}

/**
 * A namespace's search-index snapshot as the store holds it: keyed by namespace, up to an
 * audit sequence number. Its other fields are the index's own format (`IndexSnapshotRow`,
 * search/index-snapshot.ts: strings, numbers, typed arrays), which the store never reads.
 */
export interface StoredSnapshot {
  ns: string;
  lastSeq: number;
}

/**
 * The key of a namespace's access-statistics row, kept beside its index snapshot in the same
 * table (search/index-snapshot.ts `HeatRow`): what a close after recalls only writes instead of
 * rewriting the whole snapshot. {@link WriteTransaction.deleteSnapshots} deletes it with the
 * snapshot.
 */
export function heatKey(ns: string): string {
  return `${ns}\u0000heat`;
}

