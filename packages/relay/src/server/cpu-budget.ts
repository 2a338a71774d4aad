/**
 * How much of the relay's time each token subject may take: `msPerSecond` on average, up
 * to one second's worth at once. What a subject's messages cost is measured (performance.now
 * around handling them) and charged afterwards, so one message is never cut short; its
 * balance may go below zero, and the subject then waits until it is back above zero. Message
 * and byte counts alone do not bound this: one small update can make Yjs merge a megabyte
 * of updates waiting for a dependency.
 */
export class CpuBudget {
  private readonly balances = new Map<string, { ms: number; at: number }>();

  constructor(private readonly msPerSecond: number) {}

  /** Charges `ms` of the relay's time to `subject`. */
  charge(subject: string, ms: number, now: number = performance.now()): void {
    const balance = this.balance(subject, now);
    this.balances.set(subject, { ms: balance - ms, at: now });
  }

  /** Milliseconds until `subject` may run again: 0 when it is within its budget now. */
  waitMs(subject: string, now: number = performance.now()): number {
    const balance = this.balance(subject, now);
    return balance > 0 ? 0 : Math.ceil(((-balance + 1) * 1000) / this.msPerSecond);
  }

  /** Forgets subjects whose budget is full again (they cost nothing to keep track of then). */
  prune(now: number = performance.now()): void {
    for (const subject of this.balances.keys()) if (this.balance(subject, now) >= this.msPerSecond) this.balances.delete(subject);
  }

  private balance(subject: string, now: number): number {
    const last = this.balances.get(subject);
    if (!last) return this.msPerSecond;
    return Math.min(this.msPerSecond, last.ms + ((now - last.at) / 1000) * this.msPerSecond);
  }
}
