/** A change another instance sent for a room (see {@link RedisCoordination}). */
export type InstanceMessage =
  | { kind: 'updates'; first: number; updates: Uint8Array[] }
  | { kind: 'compacted'; head: number; bytes: number }
  | { kind: 'awareness'; update: Uint8Array };

/**
 * How a room of a relay with several instances talks to the others (through Redis). A
 * single-process relay passes none.
 */
export interface RoomPeers {
  /** Updates this instance stored, numbered from `first`: publish them to the other instances. */
  stored(first: number, updates: readonly Uint8Array[]): void;
  /** The room was compacted to one state at `head`. */
  compacted(head: number, bytes: number): void;
  /** An awareness update from one of this instance's sockets. */
  awareness(update: Uint8Array): void;
  /** Whether this instance may compact the room now (one instance at a time); `release` after. */
  lease(): Promise<{ release(): void } | undefined>;
}

/**
 * What relay instances share besides storage: connection counts per token subject, the
 * rooms' changes between instances, compaction leases and revocation notices. One
 * process alone uses {@link LocalCoordination}; several use Redis.
 */
export interface Coordination {
  /** Whether the shared state can be reached now (`/healthz` says `degraded` otherwise). */
  readonly ready: boolean;
  /**
   * Counts a connection of `subject`; false (counting nothing) when it holds `max` already.
   * Rejects with STORAGE_UNAVAILABLE when the count cannot be checked: the upgrade is
   * then refused (503), the limit is never skipped.
   */
  acquireConnection(subject: string, connection: string, max: number): Promise<boolean>;
  /** Stops counting a connection. */
  releaseConnection(subject: string, connection: string): void;
  /** Starts hearing other instances' changes to `room`; `room` talks to them through what it returns (undefined alone). */
  join(room: string, listener: (message: InstanceMessage) => void): Promise<RoomPeers | undefined>;
  /** Stops hearing `room`. */
  leave(room: string): void;
  /** Tells every instance the revocation list changed. */
  revocationsChanged(): void;
  /** `listener` hears the revocation list changed (another instance or `zeromem-relay revoke`), and the link came back after a loss (messages may be lost: re-read). */
  onChange(listener: (what: 'revocations' | 'reconnected') => void): void;
  close(): Promise<void>;
}

/** One process: counts in memory, no other instance to tell. */
export class LocalCoordination implements Coordination {
  readonly ready = true;
  private readonly bySubject = new Map<string, number>();

  async acquireConnection(subject: string, _connection: string, max: number): Promise<boolean> {
    const count = this.bySubject.get(subject) ?? 0;
    if (count >= max) return false;
    this.bySubject.set(subject, count + 1);
    return true;
  }

  releaseConnection(subject: string): void {
    const count = (this.bySubject.get(subject) ?? 1) - 1;
    if (count <= 0) this.bySubject.delete(subject);
    else this.bySubject.set(subject, count);
  }

  async join(): Promise<undefined> {
    return undefined;
  }

  leave(): void {}

  revocationsChanged(): void {}

  onChange(): void {}

  async close(): Promise<void> {}
}
