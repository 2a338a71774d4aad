import type { MemoryRecord } from '../public/memory-record.ts';
import type { RankingWeights } from '../public/ranking.ts';

const DAY = 86_400_000;

/** The defaults of {@link RankingWeights}. */
export const DEFAULT_WEIGHTS: Readonly<RankingWeights> = Object.freeze({
  text: 0.5,
  vector: 0.5,
  importance: 1,
  recency: 0.2,
  halfLifeMs: 30 * DAY,
  heat: 0.2,
  heatHalfLifeMs: 7 * DAY,
  context: 1,
  speaker: 0.3,
  time: 0.3,
  focus: 0.25,
});

/** The non-relevance factors of a record's score at `now`. */
export interface RankFactors {
  importance: number;
  recency: number;
  heat: number;
}

/** Importance, recency and heat factors of a record; each is 1 for a neutral record. */
export function rankFactors(record: MemoryRecord, now: number, weights: RankingWeights): RankFactors {
  const importance = 1 - weights.importance / 2 + weights.importance * record.importance;
  // Distance in time, both ways: seen from a past `now`, a later record is not "fresh".
  const age = Math.abs(now - record.createdAt);
  const recency = 1 - weights.recency + weights.recency * 0.5 ** (age / weights.halfLifeMs);
  let heat = 1;
  if (record.accessCount > 0 && record.lastAccessedAt !== null) {
    const use = 1 - Math.exp(-record.accessCount / 5); // saturates: the 50th recall adds little
    const fade = 0.5 ** (Math.max(0, now - record.lastAccessedAt) / weights.heatHalfLifeMs);
    heat = 1 + weights.heat * use * fade;
  }
  return { importance, recency, heat };
}
