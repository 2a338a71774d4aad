import { CpuBudget } from './cpu-budget.ts';

/**
 * Fair share of the relay's time between token subjects: the work done for a subject is
 * measured and charged to its {@link CpuBudget}; a subject past it waits (its sockets are
 * paused by their owner) and is woken once it is within it again.
 */
export class SubjectThrottle {
  private readonly budget: CpuBudget;
  /** Subjects waiting, with what wakes each of their sockets. */
  private readonly waiting = new Map<string, { timer: NodeJS.Timeout; wake: Set<() => void> }>();

  constructor(msPerSecond: number) {
    this.budget = new CpuBudget(msPerSecond);
  }

  /** Runs `work` for `subject` and charges the time it took (also when it throws). */
  measure<T>(subject: string, work: () => T): T {
    const start = performance.now();
    try {
      return work();
    } finally {
      this.charge(subject, performance.now() - start);
    }
  }

  /** Charges `ms` of work done for `subject` elsewhere (storing, forwarding its changes). */
  charge(subject: string, ms: number): void {
    this.budget.charge(subject, ms);
  }

  /** Whether `subject` spent its budget and must wait. */
  overdrawn(subject: string): boolean {
    return this.budget.waitMs(subject) > 0;
  }

  /** Calls `wake` once `subject` is within its budget again. */
  whenWithin(subject: string, wake: () => void): void {
    let entry = this.waiting.get(subject);
    if (!entry) {
      entry = { timer: this.timer(subject), wake: new Set() };
      this.waiting.set(subject, entry);
    }
    entry.wake.add(wake);
  }

  /** Forgets subjects that spent nothing lately (called now and then). */
  prune(): void {
    this.budget.prune();
  }

  /** Stops every timer (the relay is stopping; nobody is woken). */
  close(): void {
    for (const { timer } of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
  }

  private timer(subject: string): NodeJS.Timeout {
    const timer = setTimeout(() => this.wake(subject), this.budget.waitMs(subject));
    timer.unref();
    return timer;
  }

  private wake(subject: string): void {
    const entry = this.waiting.get(subject);
    if (!entry) return;
    this.waiting.delete(subject);
    for (const wake of entry.wake) wake();
  }
}
