/** What one durable write stores, and what may only be delivered once it did. */
interface Batch {
  changes: Uint8Array[];
  deliveries: Array<() => void>;
}

/**
 * Group commit for one room. Changes already applied to the room's document wait here,
 * with what may only be sent once they are durable (their forwards, sync answers computed
 * after them), until one durable write stores them all: at the end of the current turn of
 * the event loop, so every message read in that turn shares it, or at once when
 * `maxUpdates` changes wait. Writes run one at a time, in order; changes added while one
 * runs wait for the next. Nothing is delivered before the write that covers it resolved,
 * and after a failed write nothing more is written or delivered.
 */
export class CommitBatch {
  private open: Batch = { changes: [], deliveries: [] };
  /** The batch being written (or waiting to be), whose deliveries have not run. */
  private sealed: Batch | undefined;
  private writing: Promise<void> = Promise.resolve();
  private scheduled: NodeJS.Immediate | undefined;
  private failure: Error | undefined;

  /**
   * @param commit stores the changes durably, in order, in one write; rejects if it cannot.
   * @param committed runs after a write and its deliveries (the room compacts from here).
   * @param failed hears the first failed write (the room must then be unloaded).
   */
  constructor(
    private readonly maxUpdates: number,
    private readonly commit: (changes: Uint8Array[]) => Promise<void>,
    private readonly committed: () => void,
    private readonly failed: (err: Error) => void,
  ) {}

  /** Bytes of the changes waiting for their write. */
  waitingBytes = 0;

  /** Whether no change waits for (or is in) a write. */
  get idle(): boolean {
    return this.open.changes.length === 0 && this.sealed === undefined;
  }

  /** Adds a change and what to deliver once it is durable; starts the write at once if the batch is full. */
  add(change: Uint8Array, deliver: () => void): void {
    this.open.changes.push(change);
    this.open.deliveries.push(deliver);
    this.waitingBytes += change.byteLength;
    // A failed write is reported once through `failed` (flush's rejection only repeats it).
    if (this.open.changes.length >= this.maxUpdates) void this.flush().catch(() => {});
    else this.scheduled ??= setImmediate(() => {
      this.scheduled = undefined;
      this.flush().catch(() => {});
    });
  }

  /** Runs `deliver` once everything added so far is durable: at once when nothing waits. */
  afterCommit(deliver: () => void): void {
    if (this.open.changes.length > 0) this.open.deliveries.push(deliver);
    else if (this.sealed) this.sealed.deliveries.push(deliver);
    else deliver();
  }

  /** Writes what waits now; resolves once it and every earlier write is durable and delivered, rejects if one failed. */
  flush(): Promise<void> {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (this.failure) return Promise.reject(this.failure);
    if (this.open.changes.length === 0) return this.writing;
    const batch = this.open;
    this.open = { changes: [], deliveries: [] };
    this.sealed = batch;
    this.waitingBytes = 0;
    this.writing = this.writing.then(async () => {
      if (this.failure) throw this.failure;
      try {
        await this.commit(batch.changes);
      } catch (err) {
        this.failure = err as Error;
        this.failed(this.failure);
        throw err;
      }
      if (this.sealed === batch) this.sealed = undefined;
      for (const deliver of batch.deliveries) deliver();
      this.committed();
    });
    return this.writing;
  }

  /** Forgets what waits, unwritten and undelivered (the room is being unloaded). */
  discard(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    this.open = { changes: [], deliveries: [] };
    this.sealed = undefined;
    this.failure ??= new Error('the room was unloaded');
    this.waitingBytes = 0;
  }
}
