// How recall weighs what it ranks by (`RecallOptions.weights`).

/**
 * How recall weighs what. Relevance is `text * bm25 + vector * cosine` (BM25 divided by
 * the best candidate's, cosine divided by the best candidate's with 0 as the floor); the
 * final score multiplies it by importance, recency and heat factors and by the factors of
 * the query's signals (speaker, time, focus; see rank/query-signals.ts).
 */
export interface RankingWeights {
  /** Weight of the normalized BM25 score. Default 0.5. */
  text: number;
  /** Weight of the normalized cosine similarity. Default 0.5. */
  vector: number;
  /** How much importance moves the score: factor `1 - importance/2 + importance * record.importance`. Default 1. */
  importance: number;
  /** Share of the score that decays with age: factor `1 - recency + recency * 0.5^(age / halfLife)`. Default 0.2. */
  recency: number;
  /** Half-life of recency in milliseconds. Default 30 days. */
  halfLifeMs: number;
  /** Most a frequently recalled record gains: factor up to `1 + heat`. Default 0.2. */
  heat: number;
  /** Half-life of heat since the last recall, in milliseconds. Default 7 days. */
  heatHalfLifeMs: number;
  /** How much of its conversation neighbours' BM25 a short turn borrows (see `explain.contextBm25`). Default 1. */
  context: number;
  /** When the query speaks in the first person ("I", "my", 我), the user's own memories (`source: 'user'`) get factor `1 + speaker`. Default 0.3. */
  speaker: number;
  /** When the query names a time ("last Saturday", "two months ago", 上周), memories made then get factor up to `1 + time`. Default 0.3. */
  time: number;
  /** When a question asks about a kind of thing ("which courier", 哪家快递), memories naming it get factor up to `1 + focus`. Default 0.25. */
  focus: number;
}
