import { describe, expect, it } from 'vitest';
import { expectCode, openTestMemory } from './helpers.ts';

const ns = { userId: 'u1' };

describe('recall minScore', () => {
  it('leaves out exactly the hits scoring below it', async () => {
    const t = await openTestMemory();
    for (const content of ['charging port loose', 'charging cable replaced, port checked', 'the port of Hamburg', 'invoice sent by mail']) {
      await t.memory.remember({ namespace: ns, content });
    }
    const all = (await t.memory.recall(ns, 'charging port', { trackAccess: false })).hits;
    expect(all.length).toBeGreaterThanOrEqual(3);
    const cut = all[1]!.score; // keep the two best
    const kept = (await t.memory.recall(ns, 'charging port', { minScore: cut, trackAccess: false })).hits;
    expect(kept.map((h) => h.id)).toEqual(all.filter((h) => h.score >= cut).map((h) => h.id));
    expect(kept.length).toBeLessThan(all.length);
    expect((await t.memory.recall(ns, 'charging port', { minScore: 0, trackAccess: false })).hits).toEqual(all);
    expect((await t.memory.recall(ns, 'charging port', { minScore: all[0]!.score + 1 })).hits).toEqual([]);
  });

  it.each([-0.1, Number.NaN, Number.POSITIVE_INFINITY, '0.5', null])('refuses minScore %s', async (minScore) => {
    const t = await openTestMemory();
    await expectCode(t.memory.recall(ns, 'x', { minScore } as never), 'INVALID_INPUT', 'minScore');
  });
});
