import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GAP_WAIT_MS, InstanceFeed } from '../src/cluster/instance-feed.ts';

const update = (n: number) => new Uint8Array([n]);

describe('InstanceFeed', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('asks for one read of storage per gap that stays open GAP_WAIT_MS, none for a gap that closes or when there is none', () => {
    const applied: number[] = [];
    let reads = 0;
    const feed = new InstanceFeed(0, (u) => applied.push(u[0]!), () => reads++);
    feed.receive(1, [update(1)]);
    vi.advanceTimersByTime(GAP_WAIT_MS * 2);
    expect(reads).toBe(0); // no gap

    feed.receive(3, [update(3)]);
    feed.receive(2, [update(2)]); // closed before the wait is over
    vi.advanceTimersByTime(GAP_WAIT_MS * 2);
    expect(applied).toEqual([1, 2, 3]);
    expect(reads).toBe(1); // the timer was set; the read finds nothing new (Room.catchUp)

    feed.reading();
    feed.receive(5, [update(5)]);
    feed.receive(6, [update(6)]);
    vi.advanceTimersByTime(GAP_WAIT_MS - 1);
    expect(reads).toBe(1);
    vi.advanceTimersByTime(1);
    expect(reads).toBe(2); // one read for the gap at 4, however much arrived behind it
    feed.reading();
    feed.caughtUp(4);
    expect(applied).toEqual([1, 2, 3, 5, 6]); // 4 came from storage (the room applies it), 5 and 6 followed
    expect(feed.head).toBe(6);
  });

  it('close() drops a pending read', () => {
    let reads = 0;
    const feed = new InstanceFeed(0, () => {}, () => reads++);
    feed.receive(2, [update(2)]);
    feed.close();
    vi.advanceTimersByTime(GAP_WAIT_MS * 2);
    expect(reads).toBe(0);
  });
});
