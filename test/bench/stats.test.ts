/** A benchmark that loses a column fails: the summary helpers refuse what would print as NaN. */
import { describe, expect, it } from 'vitest';
import { median, summarize } from './stats.ts';

describe('benchmark summaries', () => {
  it('summarize and median of real samples', () => {
    expect(summarize([3, 1, 2])).toMatchObject({ p50: 2, max: 3, n: 3 });
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('no samples, or a sample that is not a finite number, is an error instead of a NaN cell', () => {
    expect(() => summarize([])).toThrow(/no samples/);
    expect(() => summarize([1, Number.NaN])).toThrow(/not a finite number/);
    expect(() => median([])).toThrow(/no values/);
    expect(() => median([1, Number.NaN])).toThrow(/not a finite number/);
  });
});
