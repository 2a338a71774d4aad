/** How many seconds' worth of its rate a socket may send at once. */
export const RATE_BURST_SECONDS = 2;

/**
 * A token bucket: `ratePerSecond` on average, up to `capacity` at once. Used per socket,
 * for messages and for bytes.
 */
export class RateLimit {
  private tokens: number;
  private at: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly capacity: number,
    now: number = performance.now(),
  ) {
    this.tokens = capacity;
    this.at = now;
  }

  /** Takes `amount`; false (taking nothing) when that would go over the limit. */
  take(amount: number, now: number = performance.now()): boolean {
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.at) / 1000) * this.ratePerSecond);
    this.at = now;
    if (amount > this.tokens) return false;
    this.tokens -= amount;
    return true;
  }
}
