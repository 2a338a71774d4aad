import { describe, expect, it } from 'vitest';
import { createUlidGenerator } from '../src/model/ids.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const timeOf = (id: string) => [...id.slice(0, 10)].reduce((t, digit) => t * 32 + CROCKFORD.indexOf(digit), 0);

describe('ULIDs', () => {
  it('are 26 Crockford digits, their time the given millisecond, ascending within a millisecond and across them', () => {
    const next = createUlidGenerator();
    const times = [0, 1, 1, 1, 1_700_000_000_123, 1_700_000_000_123, 1_700_000_000_124, 2 ** 48 - 1];
    const ids = times.map((t) => next(t));
    for (const [i, id] of ids.entries()) {
      expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(timeOf(id)).toBe(times[i]);
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
