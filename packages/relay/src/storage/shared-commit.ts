import { RelayError } from '@zeromem/protocol';
import type { RoomStorage } from './room-storage.ts';

/** One room's append waiting for the write that stores it. */
interface Waiting {
  room: string;
  updates: readonly Uint8Array[];
  stored(head: number): void;
  failed(err: Error): void;
}

/** Rooms one durable write stores at most (a bigger statement holds more rooms' rows locked for longer). */
const MAX_ROOMS_PER_WRITE = 200;
/**
 * Writes in flight at once. While they run, new appends wait and are stored together by
 * the next (group commit); more than one, so a write held by a row lock (another instance
 * compacting one of its rooms) does not hold every room of this instance.
 */
const MAX_WRITES_IN_FLIGHT = 2;

/**
 * Group commit across rooms, in front of {@link RoomStorage.append}: every room's group
 * commit ({@link CommitBatch}) appends through here, and the appends made in one turn of
 * the event loop, and those made while {@link MAX_WRITES_IN_FLIGHT} writes run, are stored
 * by one durable write (one transaction, one commit). Each append resolves with its room's
 * head once that write is durable, so nothing is delivered before it is stored.
 *
 * A room is in one write at a time; its next append waits for that write to end, so a
 * room's updates are stored in the order appended. When storage refuses a write
 * (STORAGE_FAILED: it rolled back), each of its rooms is stored again alone, so one room's
 * bad row fails only that room; when storage cannot be reached (STORAGE_UNAVAILABLE) every
 * append of the write fails with it, as it would alone. The price: a write waiting for one
 * room's row lock (another instance compacting that room) holds the rooms stored with it.
 */
export class SharedCommit {
  private waiting: Waiting[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private inFlight = 0;
  /** Rooms a write in flight stores: their next appends wait for it. */
  private readonly roomsInFlight = new Set<string>();

  constructor(private readonly store: RoomStorage) {}

  /** Stores `updates` of `room`, in order, with whatever else waits; resolves with the room's new head once durable. */
  append(room: string, updates: readonly Uint8Array[]): Promise<number> {
    return new Promise((stored, failed) => {
      this.waiting.push({ room, updates, stored, failed });
      this.scheduled ??= setImmediate(() => {
        this.scheduled = undefined;
        this.drain();
      });
    });
  }

  private drain(): void {
    while (this.waiting.length > 0 && this.inFlight < MAX_WRITES_IN_FLIGHT) {
      const write: Waiting[] = [];
      const later: Waiting[] = [];
      for (const append of this.waiting) {
        if (write.length < MAX_ROOMS_PER_WRITE && !this.roomsInFlight.has(append.room)) {
          write.push(append);
          this.roomsInFlight.add(append.room);
        } else later.push(append);
      }
      this.waiting = later;
      if (write.length === 0) return;
      this.inFlight++;
      void this.write(write).finally(() => {
        this.inFlight--;
        for (const append of write) this.roomsInFlight.delete(append.room);
        this.drain();
      });
    }
  }

  private async write(write: Waiting[]): Promise<void> {
    let heads: number[];
    try {
      heads = await this.store.append(write);
    } catch (err) {
      if (write.length > 1 && err instanceof RelayError && err.code === 'STORAGE_FAILED') {
        // Rolled back: find the room storage refuses by storing each alone.
        await Promise.all(write.map((append) => this.store.append([append]).then(([head]) => append.stored(head!), append.failed)));
      } else {
        for (const append of write) append.failed(err as Error);
      }
      return;
    }
    write.forEach((append, i) => append.stored(heads[i]!));
  }
}
