/**
 * Which of a room's numbered updates (see {@link StoredRoom.head}) an instance's document
 * holds: every one up to `head`, and some after it. Updates stored by other instances
 * arrive (through Redis) in any order, or not at all; they are applied in order, and a gap
 * that stays open is filled from storage.
 *
 * Whatever closes a gap (an update received, this instance's own append returning, a read
 * from storage) applies every update that waited behind it: `head` never passes an update
 * that was received but not applied.
 */
export class SeqTracker {
  /** Updates after `head` already known: `null` when in the document, else waiting to be applied. */
  private readonly ahead = new Map<number, Uint8Array | null>();

  /** @param apply gets, in order, every received update once all before it are in the document. */
  constructor(
    public head: number,
    private readonly apply: (update: Uint8Array) => void,
  ) {}

  /** Whether updates are known after a gap (something before them is missing). */
  get hasGap(): boolean {
    return this.ahead.size > 0;
  }

  /** Notes updates the document already holds (this instance stored them) under these numbers. */
  holds(first: number, count: number): void {
    for (let seq = first; seq < first + count; seq++) if (seq > this.head) this.ahead.set(seq, null);
    this.advance();
  }

  /** Takes updates numbered from `first`. */
  receive(first: number, updates: readonly Uint8Array[]): void {
    updates.forEach((update, i) => {
      const seq = first + i;
      if (seq > this.head && !this.ahead.has(seq)) this.ahead.set(seq, update);
    });
    this.advance();
  }

  /** After a read of everything stored up to `head` was applied. */
  caughtUp(head: number): void {
    if (head > this.head) this.head = head;
    for (const seq of this.ahead.keys()) if (seq <= this.head) this.ahead.delete(seq);
    this.advance();
  }

  private advance(): void {
    for (;;) {
      const next = this.ahead.get(this.head + 1);
      if (next === undefined) return;
      this.ahead.delete(this.head + 1);
      this.head++;
      if (next !== null) this.apply(next);
    }
  }
}
