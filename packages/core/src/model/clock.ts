import type { Clock } from '../public/clock.ts';

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };
