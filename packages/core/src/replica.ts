import type { Memory } from './memory.ts';
import { invalidInput } from './model/errors.ts';
import type { ApplyReplicatedResult, ReplicatedChange } from './model/types.ts';
import type { Namespace } from './public/memory-record.ts';
import type { DocLog, StoragePort, WriteOptions } from './store/port.ts';

/**
 * The side of an open {@link Memory} that a replication layer (`@zeromem/sync`) drives:
 * applying states decided on another replica, and hearing of local writes at once.
 * Not for application code; reached through `@zeromem/core/internal`.
 */
export interface Replica {
  /**
   * Makes the namespace hold record states (or absences) decided on another replica,
   * keeping their ids, times and versions; see {@link ApplyReplicatedResult}. Invalid
   * changes are rejected one by one, never half-written. Forgotten or replaced content
   * leaves this process's indexes and embedding queue as after a local forget. `docLog`:
   * the document updates that carried the changes, appended to the room's log (see
   * {@link DocLogAccess}) in the same transaction, stale or not. The commit is not synced
   * to disk on its own (`durable: false`, see {@link WriteOptions}): the relay stored the
   * changes before sending them, and a replica that lost them to a power cut lost the
   * updates that carried them too, so it is sent them again on its next sync.
   * @throws ZeromemError NAMESPACE_REQUIRED, INVALID_INPUT (bad namespace, options or a non-array)
   */
  apply(namespace: Namespace, changes: ReplicatedChange[], options: ReplicaApplyOptions): Promise<ApplyReplicatedResult>;
  /**
   * Calls `listener` after each committed write to this memory's audit log (every write
   * verb appends to it), from this process and, in browsers, from other tabs. The audit
   * log itself (`memory.audit()`) says what changed. Returns the function that stops it.
   */
  onAuditWrites(listener: () => void): () => void;
  /**
   * The replication layer's own state of each room, kept in this memory's store (in Node,
   * its one file): the document's updates and the audit cursor they cover (see
   * {@link DocLog}). Storage failures are coded as the store's (STORAGE_FAILED,
   * QUOTA_EXCEEDED, CLOSED after the memory closed).
   */
  readonly docLog: DocLogAccess;
}

/** Options of {@link Replica.apply}. */
export interface ReplicaApplyOptions {
  /** The last audit seq the caller has read (compare-and-swap, see {@link ApplyReplicatedResult.stale}). */
  after: number;
  actor?: string;
  /** A room's document updates to store in the same transaction. */
  docLog?: { room: string; updates: readonly Uint8Array[] };
}

/**
 * A room's document log in a memory's store (the port's `getDocLog`, `appendDocLog`,
 * `compactDocLog`, each its own transaction). Appends are not synced to disk on their own
 * (`durable: false`): the log is a copy of what the store and the relay hold durably, and
 * a power cut that loses the last appends loses the cursor moves they carried with them,
 * so the changes after the stored cursor are sent again.
 */
export interface DocLogAccess {
  /** The room's updates in append order and its cursor; none and `undefined` for a room never stored. */
  load(room: string): Promise<DocLog>;
  /** Appends updates and, when given, sets the cursor, in one transaction; resolves with how many updates the log holds. */
  append(room: string, updates: readonly Uint8Array[], cursor?: number): Promise<number>;
  /** Replaces the room's updates with `update` (the document's whole state); the replaced bytes are erased as a forget's are. */
  compact(room: string, update: Uint8Array): Promise<void>;
}

/** The {@link DocLogAccess} of a store. */
export function docLogOf(store: StoragePort): DocLogAccess {
  return {
    load: (room) => store.read((tx) => tx.getDocLog(room)),
    append: (room, updates, cursor) => store.write((tx) => tx.appendDocLog(room, updates, cursor), { durable: false }),
    compact: (room, update) => store.write((tx) => tx.compactDocLog(room, update)),
  };
}

const replicas = new WeakMap<Memory, Replica>();

/** Called once by each Memory's constructor. */
export function registerReplica(memory: Memory, replica: Replica): void {
  replicas.set(memory, replica);
}

/**
 * The {@link Replica} side of an open memory.
 * @throws ZeromemError INVALID_INPUT when `memory` is not a Memory from `openMemory()`
 */
export function replicaOf(memory: Memory): Replica {
  const replica = replicas.get(memory);
  if (!replica) throw invalidInput('memory', [{ path: '', message: 'not a Memory opened by openMemory()' }]);
  return replica;
}
