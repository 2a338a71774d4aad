import type { Coordination, InstanceMessage } from '../cluster/coordination.ts';
import type { ResolvedOptions } from '../options.ts';
import { Room } from '../room/room.ts';
import type { RoomStorage } from '../storage/room-storage.ts';
import type { SharedCommit } from '../storage/shared-commit.ts';
import type { SubjectThrottle } from './subject-throttle.ts';
import { CLOSE } from '@zeromem/protocol';
import { AwarenessQuota } from '../room/awareness-quota.ts';

/** A room load refused: the subject that asked for it spent its share of the relay's time. */
export class BudgetSpent extends Error {
  constructor(readonly subject: string) {
    super(`token subject ${JSON.stringify(subject)} used its share of the relay's time: no room is loaded for it until it is within it again`);
  }
}

/**
 * The rooms this instance holds in memory: loaded when their first socket arrives (sockets
 * of one room arriving together share one load), unloaded (compacted, then freed) when the
 * last leaves or when storage fails under them, and fed what other instances stored.
 */
export class RoomCache {
  private readonly rooms = new Map<string, Room>();
  /** Rooms being loaded. */
  private readonly opening = new Map<string, Promise<Room>>();
  /** Per token subject, its last load asked for (settled or not): the next one waits for it. */
  private readonly loadsOf = new Map<string, Promise<void>>();
  /** Changes other instances sent for a room while it loads (applied once it has). */
  private readonly early = new Map<string, InstanceMessage[]>();
  /** Rooms whose stored document could not be read at their last load. */
  readonly unreadable = new Set<string>();
  /** Writes refused from read-only sockets in rooms no longer loaded. */
  private refusedFromClosedRooms = 0;
  /** Awareness held per token subject, over every room. */
  private readonly awarenessQuota: AwarenessQuota;
  /** Set once the relay stops: rooms are then compacted by the shutdown, not unloaded one by one. */
  stopping = false;

  constructor(
    private readonly config: ResolvedOptions,
    private readonly store: RoomStorage,
    private readonly coordination: Coordination,
    /** Every room's appends, stored together when made in the same turn (group commit across rooms). */
    private readonly appends: SharedCommit,
    private readonly throttle: SubjectThrottle,
  ) {
    this.awarenessQuota = new AwarenessQuota(config.maxAwarenessStatesPerSubject, config.maxAwarenessBytesPerSubject);
  }

  /** The loaded room of that name. */
  get(name: string): Room | undefined {
    return this.rooms.get(name);
  }

  /** The loaded rooms. */
  loaded(): IterableIterator<Room> {
    return this.rooms.values();
  }

  get size(): number {
    return this.rooms.size;
  }

  /** Client ids whose awareness the loaded rooms keep. */
  awarenessClients(): number {
    let clients = 0;
    for (const room of this.rooms.values()) clients += room.awarenessClients;
    return clients;
  }

  /** Non-empty updates refused from read-only sockets since start. */
  refusedWrites(): number {
    let refused = this.refusedFromClosedRooms;
    for (const room of this.rooms.values()) refused += room.refusedWrites;
    return refused;
  }

  /** Whether `room` is the loaded room of its name (not one unloaded meanwhile). */
  holds(room: Room): boolean {
    return this.rooms.get(room.name) === room;
  }

  /**
   * The loaded room, or loads it for `subject` (subscribing to other instances' changes
   * first, so none is missed in between). A load is charged to the subject that asked for
   * it; one subject's loads run one after another, and one in debt gets none: the promise
   * rejects with {@link BudgetSpent}. Joining a room loaded, or being loaded, for someone
   * else costs nothing and is never refused.
   */
  open(name: string, subject: string): Promise<Room> {
    const ready = this.rooms.get(name) ?? this.opening.get(name);
    if (ready) return ready instanceof Room ? Promise.resolve(ready) : ready;
    const previous = this.loadsOf.get(subject) ?? Promise.resolve();
    const mine = previous.then(() => {
      const now = this.rooms.get(name) ?? this.opening.get(name);
      if (now) return now;
      if (this.throttle.overdrawn(subject)) throw new BudgetSpent(subject);
      return this.load(name, subject);
    });
    const settled = mine.then(
      () => {},
      () => {},
    );
    this.loadsOf.set(subject, settled);
    void settled.then(() => {
      if (this.loadsOf.get(subject) === settled) this.loadsOf.delete(subject);
    });
    return mine;
  }

  private load(name: string, subject: string): Promise<Room> {
    const opening = (async () => {
      this.early.set(name, []);
      try {
        const peers = await this.coordination.join(name, (message) => this.fromOtherInstance(name, message));
        const created: Room = await Room.open(
          name,
          this.store,
          this.appends,
          this.config,
          this.config.logger,
          {
            failed: (err) => this.fail(created, err),
            charge: (subject, ms) => this.throttle.charge(subject, ms),
            awarenessQuota: this.awarenessQuota,
            ...(peers ? { peers } : {}),
          },
          subject,
        );
        this.rooms.set(name, created);
        for (const message of this.early.get(name) ?? []) this.fromOtherInstance(name, message);
        return created;
      } catch (err) {
        this.coordination.leave(name);
        throw err;
      } finally {
        this.early.delete(name);
        this.opening.delete(name);
      }
    })();
    this.opening.set(name, opening);
    return opening;
  }

  /** Resolves once every load under way settled. */
  async loadsSettled(): Promise<void> {
    await Promise.allSettled([...this.opening.values()]);
  }

  /**
   * Compacts a room now, loading it for that if no socket has it open (and freeing it
   * again), so content deleted from its document is gone from storage.
   */
  async compact(name: string): Promise<void> {
    const loaded = this.rooms.get(name) ?? (await this.opening.get(name)?.catch(() => undefined));
    if (loaded) {
      await new Promise<void>((resolve, reject) => loaded.intake(() => loaded.compact().then(resolve), reject));
      return;
    }
    const peers = await this.coordination.join(name, () => {});
    try {
      const room = await Room.open(name, this.store, this.appends, this.config, this.config.logger, { failed: () => {}, ...(peers ? { peers } : {}) });
      try {
        await room.compact();
      } finally {
        room.destroy();
      }
    } finally {
      if (!this.rooms.has(name) && !this.opening.has(name)) this.coordination.leave(name);
    }
  }

  /** Storage failed under a room: unload it so its memory never holds what storage does not. */
  fail(room: Room, err: Error): void {
    if (this.rooms.get(room.name) !== room) return;
    const unavailable = (err as { code?: string }).code === 'STORAGE_UNAVAILABLE';
    this.config.logger.error(unavailable ? 'storage unavailable, room unloaded' : 'storage failed, room unloaded', { room: room.name, error: err.message });
    this.forget(room);
    for (const peer of room.peers) peer.socket.close(unavailable ? CLOSE.storageUnavailable : CLOSE.storageFailed, unavailable ? 'storage unavailable, retry' : 'storage failed');
    room.destroy();
  }

  /** The room's last socket left (one of `subject`'s, which pays for the compaction): compact what changed, then free it. */
  unload(room: Room, subject?: string): void {
    if (this.rooms.get(room.name) !== room || this.stopping || room.peers.size > 0) return;
    this.forget(room);
    room.intake(
      async () => {
        await room.compactIfChanged(subject);
        room.destroy();
      },
      (err) => {
        this.config.logger.error('compaction failed', { room: room.name, error: err.message });
        room.destroy();
      },
    );
  }

  /** Reads what other instances stored into `room` (a lost message, Redis back after a restart). */
  catchUp(room: Room): void {
    room.intake(
      () => room.catchUp(),
      (err) => this.config.logger.warn('reading updates of other instances failed', { room: room.name, error: err.message }),
    );
  }

  /** Frees every room (the relay stopped; they were compacted). */
  destroyAll(): void {
    for (const room of this.rooms.values()) room.destroy();
    this.rooms.clear();
  }

  private forget(room: Room): void {
    this.rooms.delete(room.name);
    this.coordination.leave(room.name);
    this.refusedFromClosedRooms += room.refusedWrites;
  }

  private fromOtherInstance(name: string, message: InstanceMessage): void {
    const room = this.rooms.get(name);
    if (!room) {
      this.early.get(name)?.push(message);
      return;
    }
    const failed = (err: Error): void => this.config.logger.warn('change from another instance not applied', { room: name, error: err.message });
    if (message.kind === 'updates') room.intake(() => room.fromOtherInstance(message.first, message.updates), failed);
    else if (message.kind === 'compacted') room.compactedElsewhere(message.head, message.bytes);
    else room.awarenessFromOtherInstance(message.update);
  }
}
