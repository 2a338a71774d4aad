import { describe, expect, it } from 'vitest';
import { allAt, hitAt, metricsTable, ndcgAt, queryMetrics, recallAt, reciprocalRank, scoreRun, staleAbove } from '../src/eval/metrics.ts';

const log2 = Math.log2;

describe('metrics on hand-computed examples', () => {
  // Gold a, b, c, d; a at rank 1, b at rank 3, c at rank 6, d not returned.
  const ranked = ['a', 'x', 'b', 'y', 'z', 'c', 'w'];
  const gold = ['a', 'b', 'c', 'd'];

  it('recall@k counts gold ids in the top k over all gold ids', () => {
    expect(recallAt(ranked, gold, 5)).toBe(2 / 4);
    expect(recallAt(ranked, gold, 10)).toBe(3 / 4);
    expect(recallAt(ranked, gold, 1)).toBe(1 / 4);
  });

  it('hit@k and all@k', () => {
    expect(hitAt(ranked, gold, 10)).toBe(1);
    expect(hitAt(['x', 'y'], gold, 10)).toBe(0);
    expect(allAt(ranked, gold, 10)).toBe(0);
    expect(allAt(['d', 'c', 'b', 'a'], gold, 10)).toBe(1);
    expect(allAt(['d', 'c', 'b', 'x', 'y', 'a'], gold, 5)).toBe(0);
  });

  it('NDCG@10 with binary relevance: DCG = sum 1/log2(i+2), ideal = min(|gold|, 10) hits', () => {
    const dcg = 1 / log2(2) + 1 / log2(4) + 1 / log2(7);
    const ideal = 1 / log2(2) + 1 / log2(3) + 1 / log2(4) + 1 / log2(5);
    expect(ndcgAt(ranked, gold, 10)).toBeCloseTo(dcg / ideal, 12);
    expect(ndcgAt(ranked, gold, 10)).toBeCloseTo(0.7246262, 6);
    expect(ndcgAt(['a', 'b', 'c', 'd'], gold, 10)).toBeCloseTo(1, 12);
    // Twelve gold ids, all ten returned ids relevant: the ideal is ten hits, not twelve.
    const many = Array.from({ length: 12 }, (_, i) => `g${i}`);
    expect(ndcgAt(many.slice(0, 10), many, 10)).toBeCloseTo(1, 12);
    expect(ndcgAt(['x', 'a'], ['a'], 10)).toBeCloseTo(1 / log2(3), 12);
  });

  it('MRR is 1 / rank of the first gold id anywhere in the list, 0 when none is returned', () => {
    expect(reciprocalRank(ranked, gold)).toBe(1);
    expect(reciprocalRank(['x', 'y', 'b'], gold)).toBe(1 / 3);
    const long = [...Array.from({ length: 14 }, (_, i) => `n${i}`), 'c'];
    expect(reciprocalRank(long, gold)).toBe(1 / 15); // beyond 10 still counts
    expect(reciprocalRank([], gold)).toBe(0);
  });

  it('a ranked id repeated later counts once, at its first rank', () => {
    const m = queryMetrics(['a', 'a', 'b'], ['a', 'b']);
    expect(m['R@5']).toBe(1);
    expect(m['NDCG@10']).toBeCloseTo((1 + 1 / log2(4)) / (1 + 1 / log2(3)), 12);
    // Gold ids repeated in the data count once too.
    expect(recallAt(['a'], ['a', 'a', 'b'], 10)).toBe(1 / 2);
  });

  it('scoreRun macro-averages over queries with gold, overall and per category; missing run lines score 0', () => {
    const run = new Map([
      ['q1', ['a', 'x', 'b']], // gold a, b: R@5 1, NDCG (1 + 1/2)/(1 + 1/log2 3), MRR 1
      ['q2', ['x', 'y', 'z', 'c']], // gold c: R 1, NDCG 1/log2(5), MRR 1/4
      ['q4', ['a']], // no gold: left out
    ]);
    const metrics = scoreRun(
      [
        { qid: 'q1', gold: ['a', 'b'], category: 'one' },
        { qid: 'q2', gold: ['c'], category: 'two' },
        { qid: 'q3', gold: ['d'], category: 'two' }, // not in the run
        { qid: 'q4', gold: [], category: 'one' },
      ],
      run,
    );
    const q1 = { ndcg: 1.5 / (1 + 1 / log2(3)), mrr: 1 };
    const q2 = { ndcg: 1 / log2(5), mrr: 1 / 4 };
    expect(metrics.withoutGold).toBe(1);
    expect(metrics.missingFromRun).toEqual(['q3']);
    expect(metrics.overall.n).toBe(3);
    expect(metrics.overall['R@10']).toBeCloseTo(2 / 3, 12);
    expect(metrics.overall['All@10']).toBeCloseTo(2 / 3, 12);
    expect(metrics.overall['NDCG@10']).toBeCloseTo((q1.ndcg + q2.ndcg + 0) / 3, 12);
    expect(metrics.overall.MRR).toBeCloseTo((1 + 0.25 + 0) / 3, 12);
    expect(Object.keys(metrics.perCategory)).toEqual(['one', 'two']);
    expect(metrics.perCategory.one).toMatchObject({ n: 1, 'R@5': 1, MRR: 1 });
    expect(metrics.perCategory.two!.n).toBe(2);
    expect(metrics.perCategory.two!['Hit@10']).toBe(0.5);
    expect(metrics.perCategory.two!.MRR).toBeCloseTo(0.125, 12);

    const table = metricsTable(metrics).split('\n');
    expect(table[0]).toBe('| queries | n | R@5 | R@10 | Hit@10 | All@10 | NDCG@10 | MRR |');
    expect(table[2]).toBe(`| all | 3 | 0.667 | 0.667 | 0.667 | 0.667 | ${((q1.ndcg + q2.ndcg) / 3).toFixed(3)} | 0.417 |`);
    expect(table[3]).toBe('| one | 1 | 1.000 | 1.000 | 1.000 | 1.000 | 0.920 | 1.000 |');
  });
});

describe('facts that changed (stale_ids)', () => {
  it('counts queries whose current value is first and those with a stale value above it', () => {
    expect(staleAbove(['s', 'g'], ['g'], ['s'])).toBe(1);
    expect(staleAbove(['g', 's'], ['g'], ['s'])).toBe(0);
    expect(staleAbove(['x', 's'], ['g'], ['s'])).toBe(1); // the current value not returned at all
    expect(staleAbove(['x'], ['g'], ['s'])).toBe(0);
    const run = new Map([
      ['q1', ['g1', 's1']],
      ['q2', ['s2', 'g2']],
      ['q3', ['x', 'g3']],
    ]);
    const metrics = scoreRun(
      [
        { qid: 'q1', gold: ['g1'], category: 'c', stale: ['s1'] },
        { qid: 'q2', gold: ['g2'], category: 'c', stale: ['s2'] },
        { qid: 'q3', gold: ['g3'], category: 'c', stale: ['s3'] },
        { qid: 'q4', gold: ['g4'], category: 'c' },
      ],
      run,
    );
    expect(metrics.factChanges).toEqual({ queries: 3, currentFirst: 1 / 3, staleAbove: 1 / 3 });
    expect(metricsTable(metrics)).toContain('facts that changed (3 queries with stale_ids): current value first 0.333, a stale value above it 0.333');
    expect(scoreRun([{ qid: 'q4', gold: ['g4'], category: 'c' }], run).factChanges).toBeUndefined();
  });
});
