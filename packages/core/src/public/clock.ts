// The clock a memory reads the time from (`OpenMemoryOptions.clock`).

/** Where zeromem reads the time. Inject a fake one to test TTLs and decay without sleeping. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}
