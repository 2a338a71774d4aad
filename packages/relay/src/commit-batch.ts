/**
 * Group commit for one room. Changes already applied to the room's document wait here,
 * with what may only be sent once they are durable (their forwards, sync answers computed
 * after them), until one durable write stores them all: at the end of the current turn of
 * the event loop, so every message read in that turn shares it, or at once when
 * `maxUpdates` changes wait. Nothing is delivered before the write that covers it returned.
 */
export class CommitBatch {
  private changes: Uint8Array[] = [];
  private deliveries: Array<() => void> = [];
  private scheduled: NodeJS.Immediate | undefined;

  /**
   * @param commit stores the changes durably, in order, in one write; throws if it cannot.
   * @param committed runs after a write and its deliveries (the room compacts from here).
   * @param failed hears a write that failed at the end of a turn (nobody else would).
   */
  constructor(
    private readonly maxUpdates: number,
    private readonly commit: (changes: Uint8Array[]) => void,
    private readonly committed: () => void,
    private readonly failed: (err: Error) => void,
  ) {}

  /** Bytes of the changes waiting for their write. */
  waitingBytes = 0;

  /** Adds a change and what to deliver once it is durable; writes at once if the batch is full (and throws if that fails). */
  add(change: Uint8Array, deliver: () => void): void {
    this.changes.push(change);
    this.deliveries.push(deliver);
    this.waitingBytes += change.byteLength;
    if (this.changes.length >= this.maxUpdates) this.flush();
    else this.scheduled ??= setImmediate(() => this.flushLater());
  }

  /** Runs `deliver` once everything added so far is durable: at once when nothing waits. */
  afterCommit(deliver: () => void): void {
    if (this.changes.length === 0) deliver();
    else this.deliveries.push(deliver);
  }

  /** Writes what waits now, then delivers; throws (delivering nothing) if the write fails. */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (this.changes.length === 0) return;
    const changes = this.changes;
    const deliveries = this.deliveries;
    this.changes = [];
    this.deliveries = [];
    this.waitingBytes = 0;
    this.commit(changes);
    for (const deliver of deliveries) deliver();
    this.committed();
  }

  /** Forgets what waits, unwritten and undelivered (the room is being unloaded). */
  discard(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    this.changes = [];
    this.deliveries = [];
    this.waitingBytes = 0;
  }

  private flushLater(): void {
    this.scheduled = undefined;
    try {
      this.flush();
    } catch (err) {
      this.failed(err as Error);
    }
  }
}
