/**
 * Ctrl-C (SIGINT) and SIGTERM during a job: the first one asks the job to stop after the
 * batch in flight (it commits, the checkpoint is written); a second one exits at once
 * (the open transaction is rolled back by SQLite, the checkpoint is the last commit's).
 */
export class Interrupt {
  #requested: string | undefined;
  readonly #handler = (signal: NodeJS.Signals) => {
    if (this.#requested) process.exit(130);
    this.#requested = signal;
    this.onRequest?.(signal);
  };
  /** Called once, on the first signal (e.g. to print "stopping after this batch"). */
  onRequest: ((signal: NodeJS.Signals) => void) | undefined;

  constructor() {
    process.on('SIGINT', this.#handler);
    process.on('SIGTERM', this.#handler);
  }

  /** The signal that asked to stop, if any. */
  get requested(): string | undefined {
    return this.#requested;
  }

  /** Stops listening (the job is over). */
  dispose(): void {
    process.off('SIGINT', this.#handler);
    process.off('SIGTERM', this.#handler);
  }
}
