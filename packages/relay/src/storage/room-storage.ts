import { RelayError } from '@zeromem/protocol';

/** A room's stored updates, oldest first, their total size, and the room's head. */
export interface StoredRoom {
  updates: Uint8Array[];
  bytes: number;
  /**
   * Sequence number of the room's last stored update (0 for an empty room). In PostgreSQL
   * the numbers of a room are dense (1, 2, 3, ...) so an instance sees a gap in what it was
   * sent; SQLite, served by one process, only promises they grow.
   */
  head: number;
}

/** Updates to store for one room, oldest first. */
export interface RoomAppend {
  room: string;
  updates: readonly Uint8Array[];
}

/** A revoked token id, or every token of a subject issued up to `revokedAt`. */
export interface Revocation {
  kind: 'token' | 'subject';
  value: string;
  /** When it was revoked (ms since the epoch). */
  revokedAt: number;
  /** When it may be forgotten: every token it covers has expired by then (ms since the epoch). */
  expiresAt: number;
}

/**
 * Where the relay keeps rooms durably: SQLite in one process ({@link SqliteStore}), or
 * PostgreSQL shared by every instance ({@link PostgresStore}). Every promise resolves
 * only once what it wrote is durable; every failure rejects with a {@link RelayError}:
 * STORAGE_UNAVAILABLE when the storage cannot be reached right now (retry later), else
 * STORAGE_FAILED.
 */
export interface RoomStorage {
  /** `sqlite` or `postgres`, for /healthz and logs. */
  readonly kind: 'sqlite' | 'postgres';
  /** Durable writes (appends and compactions) since opened. */
  readonly durableWrites: number;
  /** Updates appended since opened. */
  readonly storedUpdates: number;
  /** Every stored update of `room`, oldest first. */
  load(room: string): Promise<StoredRoom>;
  /**
   * Stores the updates of each listed room (rooms distinct), in order, all in one durable
   * write (one transaction): every room's or none. Resolves with each room's new head, in
   * the order listed.
   */
  append(appends: readonly RoomAppend[]): Promise<number[]>;
  /** The updates of `room` after `head` (what another instance stored since), and the new head. */
  since(room: string, head: number): Promise<StoredRoom>;
  /** Each listed room's head (rooms never written are left out). */
  heads(rooms: readonly string[]): Promise<Map<string, number>>;
  /**
   * Replaces stored updates of `room` by one state, atomically. `head` is the last update
   * the caller's document holds. PostgreSQL holds other instances' appends for the while,
   * hands `encode` what was stored after `head` and replaces every update; SQLite (one
   * process) hands it nothing and replaces the updates up to `head`. `encode` returns the
   * state to store; the promise resolves with the state's head and size, or undefined
   * when the room has nothing stored.
   */
  compact(room: string, head: number, encode: (missing: Uint8Array[]) => Uint8Array): Promise<{ head: number; bytes: number } | undefined>;
  /** Adds (or renews) a revocation. */
  revoke(revocation: Revocation): Promise<void>;
  /** Every revocation not yet expired. */
  revocations(): Promise<Revocation[]>;
  /** Closes the storage. */
  close(): Promise<void>;
}

/** Whether `err` is a failure of the storage (and not, say, of a peer's message). */
export function isStorageFailure(err: unknown): err is RelayError {
  return err instanceof RelayError && (err.code === 'STORAGE_FAILED' || err.code === 'STORAGE_UNAVAILABLE');
}

/** Total size of some updates. */
export function totalBytes(updates: readonly Uint8Array[]): number {
  return updates.reduce((sum, update) => sum + update.byteLength, 0);
}
