import { describe, expect, it } from 'vitest';
import { ZeromemError } from '../src/index.ts';
import { openTestMemory } from './helpers.ts';

const ns = { userId: 'u1' };

/** `remember(..., { ifLatest })`: a compare-and-set on a fact key's latest version (what the memory tool's edits need). */
describe('remember with ifLatest', () => {
  it('writes when the key has no version and ifLatest is null; refuses a second such write with CONFLICT', async () => {
    const { memory } = await openTestMemory();
    const first = await memory.remember({ namespace: ns, content: 'Plan A', key: 'plan' }, { ifLatest: null });
    expect(first.record.key).toBe('plan');
    const err = await memory.remember({ namespace: ns, content: 'Plan B', key: 'plan' }, { ifLatest: null }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ZeromemError);
    expect(err).toMatchObject({ code: 'CONFLICT', details: { existingId: first.id } });
    expect((await memory.list(ns, { includeClosed: true })).items.map((r) => r.content)).toEqual(['Plan A']);
  });

  it('writes on top of the latest version it names, and refuses a write based on an older one', async () => {
    const { memory, clock } = await openTestMemory();
    const a = await memory.remember({ namespace: ns, content: 'Plan A', key: 'plan' });
    clock.advance(1000);
    const b = await memory.remember({ namespace: ns, content: 'Plan B', key: 'plan' }, { ifLatest: a.id });
    expect(b.closed).toEqual([a.id]);
    clock.advance(1000);
    const stale = await memory.remember({ namespace: ns, content: 'Plan C', key: 'plan' }, { ifLatest: a.id }).catch((e: unknown) => e);
    expect(stale).toMatchObject({ code: 'CONFLICT', details: { existingId: b.id } });
    expect((await memory.profile(ns)).map((f) => f.content)).toEqual(['Plan B']);
  });

  it('with { id, version }, an in-place update of the latest version since it was read is a change too', async () => {
    // The memory tool checks edits against the version it last showed the model: an
    // update() of that record in place (another door) must not be overwritten unseen.
    const { memory, clock } = await openTestMemory();
    const a = await memory.remember({ namespace: ns, content: 'Plan A', key: 'plan' });
    await memory.update(ns, a.id, { content: 'Plan A, revised' });
    clock.advance(1000);
    const stale = await memory.remember({ namespace: ns, content: 'Plan B', key: 'plan' }, { ifLatest: { id: a.id, version: 1 } }).catch((e: unknown) => e);
    expect(stale).toMatchObject({ code: 'CONFLICT', details: { existingId: a.id, currentVersion: 2 } });
    expect((await memory.profile(ns)).map((f) => f.content)).toEqual(['Plan A, revised']);
    const b = await memory.remember({ namespace: ns, content: 'Plan B', key: 'plan' }, { ifLatest: { id: a.id, version: 2 } });
    expect(b.closed).toEqual([a.id]);
    await expect(memory.remember({ namespace: ns, content: 'Plan C', key: 'plan' }, { ifLatest: { id: b.id, version: 0 } })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(memory.remember({ namespace: ns, content: 'Plan C', key: 'plan' }, { ifLatest: { id: b.id } as unknown as string })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('is only for keyed facts, and must be a string, { id, version } or null', async () => {
    const { memory } = await openTestMemory();
    await expect(memory.remember({ namespace: ns, content: 'x' }, { ifLatest: null })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(memory.remember({ namespace: ns, content: 'x', key: 'k' }, { ifLatest: 3 as unknown as string })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await memory.count(ns, { includeClosed: true })).toBe(0);
  });
});
