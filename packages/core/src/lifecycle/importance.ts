import type { LifecyclePolicy } from '../public/lifecycle.ts';

/** The time a record was last touched: written, changed, recalled or marked used. */
export function lastTouch(record: { createdAt: number; updatedAt: number; lastAccessedAt: number | null }): number {
  return Math.max(record.createdAt, record.updatedAt, record.lastAccessedAt ?? 0);
}

/**
 * Importance after decaying from `from` to `now`: the part above the floor halves every
 * `decayHalfLifeMs`. Importance at or below the floor stays. A pure function of its
 * inputs, so the same clock gives the same values, and decaying in two steps equals one.
 */
export function decayImportance(importance: number, from: number, now: number, policy: LifecyclePolicy): number {
  if (importance <= policy.importanceFloor || now <= from) return importance;
  const decayed = policy.importanceFloor + (importance - policy.importanceFloor) * 0.5 ** ((now - from) / policy.decayHalfLifeMs);
  return Math.min(1, Math.max(0, decayed));
}

/** Importance after one use: `useGain` of the distance to 1 is added (never above 1). */
export function gainImportance(importance: number, policy: LifecyclePolicy): number {
  return Math.min(1, importance + policy.useGain * (1 - importance));
}
