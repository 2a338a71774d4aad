import type { Source, Layer, Tier, Namespace, JsonObject, TimeInput, Duration, MemoryRecord } from '../public/memory-record.ts';
import type { RedactionCount } from '../public/redaction.ts';
import type { ItemFailure } from '../public/errors.ts';

/** All {@link Source} values. */
export const SOURCES: readonly Source[] = ['user', 'assistant', 'tool', 'system', 'memory'];

/** All {@link Layer} values. */
export const LAYERS: readonly Layer[] = ['session', 'long_term', 'knowledge'];

/** All {@link Tier} values. */
export const TIERS: readonly Tier[] = ['hot', 'cold'];

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
  rejected: ItemFailure[];
  /** The namespace's last audit seq after the call. */
  lastSeq: number;
  /** With the `docLog` option: how many updates the room's document log holds after the call. */
  docLogSize?: number;
}

