import { describe, expect, it } from 'vitest';
import { SeqTracker } from '../src/cluster/seq-tracker.ts';

const update = (n: number) => new Uint8Array([n]);

describe('SeqTracker', () => {
  it('applies what arrives in order, holding what comes after a gap', () => {
    const applied: number[] = [];
    const seq = new SeqTracker(0, (u) => applied.push(u[0]!));
    seq.receive(1, [update(1)]);
    seq.receive(3, [update(3)]);
    expect(applied).toEqual([1]);
    expect(seq.hasGap).toBe(true);
    seq.receive(2, [update(2)]);
    expect(applied).toEqual([1, 2, 3]);
    expect(seq.head).toBe(3);
    expect(seq.hasGap).toBe(false);
  });

  // The race of the load test: another instance's update n+1 arrives (through Redis) while this
  // instance's own append, which took n, has not returned yet. Its return closes the gap: n+1
  // must then be applied, not skipped as if this instance held it.
  it('applies an update that waited behind a number this instance stored', () => {
    const applied: number[] = [];
    const seq = new SeqTracker(10, (u) => applied.push(u[0]!));
    seq.receive(12, [update(12)]);
    expect(applied).toEqual([]);
    seq.holds(11, 1);
    expect(applied).toEqual([12]);
    expect(seq.head).toBe(12);
    expect(seq.hasGap).toBe(false);
  });

  it('after a read up to a head, applies what waited beyond it and drops what the read covered', () => {
    const applied: number[] = [];
    const seq = new SeqTracker(0, (u) => applied.push(u[0]!));
    seq.receive(2, [update(2)]);
    seq.receive(5, [update(5)]);
    seq.caughtUp(4);
    expect(applied).toEqual([5]);
    expect(seq.head).toBe(5);
    expect(seq.hasGap).toBe(false);
  });

  it('ignores numbers it holds already', () => {
    const applied: number[] = [];
    const seq = new SeqTracker(3, (u) => applied.push(u[0]!));
    seq.receive(2, [update(2), update(3), update(4)]);
    seq.holds(4, 1);
    expect(applied).toEqual([4]);
    expect(seq.head).toBe(4);
  });
});
