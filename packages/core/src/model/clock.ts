/** Where zeromem reads the time. Inject a fake one to test TTLs and decay without sleeping. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };
