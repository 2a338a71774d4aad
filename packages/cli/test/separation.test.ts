import { describe, expect, it } from 'vitest';
import { separation } from '../src/eval/separation.ts';

const line = (qid: string, own: number[], foreign: number[]) => ({
  qid,
  own: own.map((relevance, i): [string, number, number, number] => [`m${i}`, relevance, relevance, 0]),
  foreign: foreign.map((relevance): [number, number, number] => [relevance, relevance, 0]),
});

describe('separation: how well the best own relevance stands above the best foreign one (AUC)', () => {
  it('is 1 when every own answer is above every foreign one, 0 when below, 0.5 for ties; an empty answer is relevance 0', () => {
    expect(separation([line('a', [0.9, 0.1], [0.2]), line('b', [0.5], [0.3, 0.4])])).toBe(1);
    expect(separation([line('a', [0.1], [0.9]), line('b', [0.2], [0.8])])).toBe(0);
    expect(separation([line('a', [0.1], [0.9]), line('b', [0.2], [])])).toBe(0.5); // own 0.1, 0.2 against foreign 0.9, 0: 2 of 4 pairs
    expect(separation([line('a', [0.4], [0.4])])).toBe(0.5);
    expect(separation([line('a', [], [])])).toBe(0.5);
  });

  it('counts every own answer against every foreign one (Mann-Whitney), and is undefined with no foreign query', () => {
    // own 0.8, 0.3; foreign 0.5, 0.1: pairs won 1+1+0+1 of 4.
    expect(separation([line('a', [0.8], [0.5]), line('b', [0.3], [0.1])])).toBe(0.75);
    expect(separation([])).toBeUndefined();
  });
});
