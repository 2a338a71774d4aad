import { SeqTracker } from './seq-tracker.ts';

/** How long a gap in the numbered updates from other instances may stay before it is read from storage. */
export const GAP_WAIT_MS = 50;

/**
 * A room's side that faces the other instances of a relay: which of the room's numbered
 * updates its document holds ({@link SeqTracker}: updates heard through Redis are applied
 * in number order), and when a gap has stayed open long enough to be read from storage
 * (`readGap`, after {@link GAP_WAIT_MS}). The room applies what it is given and does the read.
 */
export class InstanceFeed {
  private readonly seq: SeqTracker;
  private gapTimer: NodeJS.Timeout | undefined;

  /**
   * @param head the last update number the loaded document holds
   * @param apply gets, in order, every update heard once all before it are in the document
   * @param readGap asked to read what other instances stored after {@link head} (once per gap)
   */
  constructor(
    head: number,
    apply: (update: Uint8Array) => void,
    private readonly readGap: () => void,
  ) {
    this.seq = new SeqTracker(head, apply);
  }

  /** The number the document holds every update up to. */
  get head(): number {
    return this.seq.head;
  }

  /** This instance stored these updates (the document holds them already) under these numbers. */
  holds(first: number, count: number): void {
    this.seq.holds(first, count);
  }

  /** Another instance stored these updates, numbered from `first`: applied in order; a gap is read from storage if it stays. */
  receive(first: number, updates: readonly Uint8Array[]): void {
    this.seq.receive(first, updates);
    if (this.seq.hasGap) {
      // Set until the read starts ({@link reading}): one read per gap, however much arrives meanwhile.
      this.gapTimer ??= setTimeout(() => this.readGap(), GAP_WAIT_MS);
    }
  }

  /** A read of storage starts: a gap seen from now on waits again. */
  reading(): void {
    clearTimeout(this.gapTimer);
    this.gapTimer = undefined;
  }

  /** Everything stored up to `head` is in the document (read from storage, or a compaction's state). */
  caughtUp(head: number): void {
    this.seq.caughtUp(head);
  }

  /** Stops waiting for gaps (the room is gone). */
  close(): void {
    clearTimeout(this.gapTimer);
    this.gapTimer = undefined;
  }
}
