import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SCORE_PARTS, scoreSegments } from '../../src/renderer/components/score-bar.tsx';

describe('the score bar segments', () => {
  it('add up to the score for any explain (seeded property)', () => {
    const seed = Date.now() % 2 ** 31;
    console.log(`score-segments seed ${seed}`);
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0.5, max: 1.5, noNaN: true }), fc.double({ min: 0.8, max: 1, noNaN: true }), fc.double({ min: 1, max: 1.2, noNaN: true }), fc.double({ min: 1, max: 1.3, noNaN: true }), fc.double({ min: 1, max: 1.3, noNaN: true }), (text, vector, importance, recency, heat, speaker, time) => {
        const relevance = 0.5 * text + 0.5 * vector;
        const factor = importance * recency * heat * speaker * time;
        const score = relevance * factor;
        const explain = { bm25: null, contextBm25: null, cosine: null, speaker, time, focus: 1, textScore: text, vectorScore: vector, relevance, importance, recency, heat, contributions: { text: 0.5 * text * factor, vector: 0.5 * vector * factor }, evidence: { lexical: null, semantic: null, agreement: 1, relevance: 0 }, validity: null };
        const parts = scoreSegments(explain);
        const sum = SCORE_PARTS.reduce((total, part) => total + parts[part], 0);
        expect(sum).toBeCloseTo(score, 9);
        expect(parts.text).toBeGreaterThanOrEqual(0);
        expect(parts.vector).toBeGreaterThanOrEqual(0);
      }),
      { seed },
    );
  });
});
