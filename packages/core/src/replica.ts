import type { Memory } from './memory.ts';
import { invalidInput } from './model/errors.ts';
import type { ApplyReplicatedResult, Namespace, ReplicatedChange } from './model/types.ts';

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
   * leaves this process's indexes and embedding queue as after a local forget.
   * @throws ZeromemError NAMESPACE_REQUIRED, INVALID_INPUT (bad namespace, options or a non-array)
   */
  apply(namespace: Namespace, changes: ReplicatedChange[], options: { after: number; actor?: string }): Promise<ApplyReplicatedResult>;
  /**
   * Calls `listener` after each committed write to this memory's audit log (every write
   * verb appends to it), from this process and, in browsers, from other tabs. The audit
   * log itself (`memory.audit()`) says what changed. Returns the function that stops it.
   */
  onAuditWrites(listener: () => void): () => void;
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
