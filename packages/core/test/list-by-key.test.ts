import { describe, expect, it } from 'vitest';
import { openTestMemory } from './helpers.ts';

const ns = { userId: 'u1' };

/**
 * `list` with `key` reads that fact key's versions through the key's index instead of
 * scanning the namespace (the memory tool reads one file's versions per command): the
 * pages, their order and their cursors are those of the filter applied to the whole list.
 */
describe('list with a fact key', () => {
  it('pages every version of a key in either order, with the other filters and validity, as the whole list filtered', async () => {
    const { memory, clock } = await openTestMemory();
    for (let i = 0; i < 12; i++) {
      clock.advance(1000);
      await memory.remember({ namespace: ns, content: `Plan ${i}`, key: i % 3 === 0 ? 'other' : 'plan', tags: i % 2 ? ['odd'] : [] });
      await memory.remember({ namespace: ns, content: `Unkeyed ${i}` });
    }
    const asOf = clock.now() - 5500;
    for (const order of ['asc', 'desc'] as const) {
      for (const orderBy of ['createdAt', 'updatedAt'] as const) {
        for (const extra of [{ includeClosed: true }, {}, { asOf }, { includeClosed: true, tags: { any: ['odd'] } }]) {
          const all = (await memory.list(ns, { ...extra, order, orderBy, limit: 1000 })).items.filter((r) => r.key === 'plan').map((r) => r.id);
          const paged: string[] = [];
          let cursor: string | undefined;
          do {
            const page = await memory.list(ns, { ...extra, key: 'plan', order, orderBy, limit: 3, ...(cursor ? { cursor } : {}) });
            paged.push(...page.items.map((r) => r.id));
            cursor = page.nextCursor ?? undefined;
          } while (cursor);
          expect(paged, JSON.stringify({ order, orderBy, extra })).toEqual(all);
        }
      }
    }
    expect((await memory.list(ns, { key: 'plan', includeClosed: true })).items).toHaveLength(8);
  });
});
