import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TopK } from '../src/search/top-k.ts';
import { fcSeed } from './helpers.ts';

/**
 * TopK keeps the k best items by one total order: higher score first, and of equal scores
 * the lower item. What it keeps must not depend on the order items are offered in: the
 * vector index offers its candidates, then the rows near the cut, and must keep what a
 * scan of every row in row order keeps (a CI run found the two disagreeing on a tie).
 */
describe('TopK', () => {
  it('keeps the lower item of two equal scores, even when a better item evicts the worst', () => {
    const top = new TopK(2);
    top.push(0, 1);
    top.push(1, 1);
    top.push(2, 2); // evicts one of the two tied at 1: item 1, never item 0
    expect(top.sorted()).toEqual([
      { item: 2, score: 2 },
      { item: 0, score: 1 },
    ]);
  });

  it('keeps a lower item offered late over an equal score kept earlier', () => {
    const top = new TopK(1);
    top.push(5, 1);
    top.push(3, 1);
    expect(top.sorted()).toEqual([{ item: 3, score: 1 }]);
    expect(top.floor).toBe(1);
  });

  it('keeps the first k of the whole sort, whatever order the items come in (seeded)', () => {
    fc.assert(
      fc.property(
        // Scores from a handful of values, so ties are the rule, not the exception.
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 20 }),
        fc.infiniteStream(fc.nat()),
        (scores, k, randomness) => {
          const items = scores.map((score, item) => ({ item, score }));
          const shuffled = items.slice();
          const stream = randomness[Symbol.iterator]();
          for (let i = shuffled.length - 1; i > 0; i--) {
            const j = stream.next().value % (i + 1);
            [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
          }
          const top = new TopK(Math.min(k, items.length));
          for (const { item, score } of shuffled) top.push(item, score);
          const expected = items.sort((a, b) => b.score - a.score || a.item - b.item).slice(0, k);
          expect(top.sorted()).toEqual(expected);
        },
      ),
      { seed: fcSeed('top-k ties') },
    );
  });
});
