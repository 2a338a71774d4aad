import { describe, expect, it } from 'vitest';
import { expectCode, openTestMemory } from './helpers.ts';

const ns = { userId: 'u1', agentId: 'support' };

describe('history', () => {
  it('returns earlier versions oldest first, with who replaced each and when', async () => {
    const t = await openTestMemory({ actor: 'agent' });
    const { id, record: v1 } = await t.memory.remember({ namespace: ns, content: 'Ticket TS20240315 opened', tags: ['ticket'], metadata: { status: 'open' } });
    expect(await t.memory.history(ns, id)).toEqual([]);
    t.clock.advance(1000);
    const v2 = await t.memory.update(ns, id, { metadata: { status: 'waiting' } }, { actor: 'wang' });
    t.clock.advance(1000);
    await t.memory.update(ns, id, { content: 'Ticket TS20240315 closed', metadata: { status: 'closed' } });
    const versions = await t.memory.history(ns, id);
    expect(versions.map((v) => [v.version, v.content, v.metadata.status, v.changedBy, v.changedAt])).toEqual([
      [1, 'Ticket TS20240315 opened', 'open', 'wang', v1.createdAt + 1000],
      [2, 'Ticket TS20240315 opened', 'waiting', 'agent', v1.createdAt + 2000],
    ]);
    expect(versions[0]).toMatchObject({ tags: ['ticket'], updatedAt: v1.updatedAt, contentHash: v1.contentHash });
    expect(versions[1]!.updatedAt).toBe(v2.updatedAt);
    // A no-op update is no version.
    await t.memory.update(ns, id, { metadata: { status: 'closed' } });
    expect(await t.memory.history(ns, id)).toHaveLength(2);
    // Reads never carry history.
    expect(await t.memory.get(ns, id)).not.toHaveProperty('history');
    expect((await t.memory.list(ns)).items[0]).not.toHaveProperty('history');
  });

  it('keeps the last 20 versions', async () => {
    const t = await openTestMemory();
    const { id } = await t.memory.remember({ namespace: ns, content: 'v1' });
    for (let v = 2; v <= 30; v++) await t.memory.update(ns, id, { content: `v${v}` });
    const versions = await t.memory.history(ns, id);
    expect(versions.map((v) => v.content)).toEqual(Array.from({ length: 20 }, (_, i) => `v${i + 10}`));
  });

  it('survives a duplicate remember that raises importance, and records consolidation', async () => {
    const t = await openTestMemory();
    const { id } = await t.memory.remember({ namespace: ns, content: 'Prefers phone calls', importance: 0.3 });
    await t.memory.update(ns, id, { tags: ['contact'] });
    await t.memory.remember({ namespace: ns, content: 'Prefers phone calls', importance: 0.9 });
    expect((await t.memory.history(ns, id)).map((v) => v.version)).toEqual([1]);
    t.clock.advance(1000);
    const { id: twin } = await t.memory.remember({ namespace: ns, content: 'prefers phone calls!' , tags: ['contact'] });
    const { groups } = await t.memory.consolidate(ns, { actor: 'nightly' });
    expect(groups).toHaveLength(1);
    const versions = await t.memory.history(ns, groups[0]!.keepId);
    expect(versions.at(-1)).toMatchObject({ changedBy: 'nightly' });
    expect(groups[0]!.keepId === twin || groups[0]!.keepId === id).toBe(true);
  });

  it('NOT_FOUND for a missing, forgotten or expired record; bad arguments refused', async () => {
    const t = await openTestMemory();
    await expectCode(t.memory.history(ns, 'nope'), 'NOT_FOUND');
    const { id } = await t.memory.remember({ namespace: ns, content: 'short-lived', ttl: '1h' });
    await t.memory.update(ns, id, { content: 'short-lived, changed' });
    t.clock.advance(2 * 3_600_000);
    await expectCode(t.memory.history(ns, id), 'NOT_FOUND');
    await expectCode(t.memory.history(undefined as never, id), 'NAMESPACE_REQUIRED');
    await expectCode(t.memory.history(ns, '' as never), 'INVALID_INPUT', 'id');
  });
});

describe('historyDepth', () => {
  it('0 keeps no versions; other depths keep that many', async () => {
    const none = await openTestMemory({ historyDepth: 0 });
    const { id } = await none.memory.remember({ namespace: ns, content: 'v1' });
    await none.memory.update(ns, id, { content: 'v2' });
    expect(await none.memory.history(ns, id)).toEqual([]);
    expect(await none.dump()).not.toContain('"v1"');
    const two = await openTestMemory({ historyDepth: 2 });
    const b = await two.memory.remember({ namespace: ns, content: 'v1' });
    for (const content of ['v2', 'v3', 'v4']) await two.memory.update(ns, b.id, { content });
    expect((await two.memory.history(ns, b.id)).map((v) => v.content)).toEqual(['v2', 'v3']);
  });

  it.each([-1, 1.5, 1001, '3', null])('refuses historyDepth %s', async (historyDepth) => {
    await expectCode(openTestMemory({ historyDepth } as never), 'INVALID_INPUT', 'historyDepth');
  });
});
