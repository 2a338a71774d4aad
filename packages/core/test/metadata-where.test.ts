import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject, MetadataQuery, Namespace } from '../src/index.ts';
import { expectCode, fcSeed, openTestMemory, type TestMemory } from './helpers.ts';

const ns: Namespace = { userId: 'u1', agentId: 'support' };

/** Tickets with metadata of every JSON kind; `ids(where)` lists the matching ids, sorted. */
async function tickets(): Promise<{ t: TestMemory; ids: (where: MetadataQuery) => Promise<string[]> }> {
  const t = await openTestMemory();
  const rows: Array<[string, JsonObject]> = [
    ['a', { status: 'open', priority: 5, labels: ['charging', 'urgent'], due: '2026-03-01', customer: { tier: 'gold', city: 'Shenzhen' } }],
    ['b', { status: 'closed', priority: 2, labels: ['billing'], due: '2026-01-15', customer: { tier: 'silver' } }],
    ['c', { status: 'open', priority: 3, labels: [], note: 'charging port loose' }],
    ['d', { status: 'waiting', priority: '4', escalated: true }],
    ['e', {}],
  ];
  for (const [id, metadata] of rows) await t.memory.remember({ namespace: ns, id, content: `ticket ${id} about charging`, metadata });
  const ids = async (where: MetadataQuery) => (await t.memory.list(ns, { where, limit: 100 })).items.map((r) => r.id).sort();
  return { t, ids };
}

describe('metadata where: operators', () => {
  it('eq, ne, in, nin: deep equality; a missing value is never equal', async () => {
    const { ids } = await tickets();
    expect(await ids({ key: 'status', eq: 'open' })).toEqual(['a', 'c']);
    expect(await ids({ key: 'customer', eq: { city: 'Shenzhen', tier: 'gold' } })).toEqual(['a']); // key order does not matter
    expect(await ids({ key: 'status', ne: 'open' })).toEqual(['b', 'd', 'e']);
    expect(await ids({ key: 'status', in: ['open', 'waiting'] })).toEqual(['a', 'c', 'd']);
    expect(await ids({ key: 'status', nin: ['open', 'waiting'] })).toEqual(['b', 'e']);
    expect(await ids({ key: 'priority', eq: 4 })).toEqual([]); // "4" is a string
  });

  it('gt, gte, lt, lte compare numbers with numbers and strings with strings only', async () => {
    const { ids } = await tickets();
    expect(await ids({ key: 'priority', gt: 2 })).toEqual(['a', 'c']); // d's "4" is not a number
    expect(await ids({ key: 'priority', gte: 2, lt: 5 })).toEqual(['b', 'c']);
    expect(await ids({ key: 'priority', lte: 2 })).toEqual(['b']);
    expect(await ids({ key: 'due', lt: '2026-02-01' })).toEqual(['b']); // ISO dates compare as strings
    expect(await ids({ key: 'priority', gt: '3' })).toEqual(['d']);
  });

  it('contains: a substring of a string, an element of an array', async () => {
    const { ids } = await tickets();
    expect(await ids({ key: 'labels', contains: 'urgent' })).toEqual(['a']);
    expect(await ids({ key: 'note', contains: 'port' })).toEqual(['c']);
    expect(await ids({ key: 'labels', contains: 'urg' })).toEqual([]); // arrays match whole elements
  });

  it('exists, and paths into nested objects', async () => {
    const { ids } = await tickets();
    expect(await ids({ key: 'escalated', exists: true })).toEqual(['d']);
    expect(await ids({ key: 'labels', exists: false })).toEqual(['d', 'e']);
    expect(await ids({ key: ['customer', 'tier'], eq: 'gold' })).toEqual(['a']);
    expect(await ids({ key: ['customer', 'city'], exists: false })).toEqual(['b', 'c', 'd', 'e']);
    expect(await ids({ key: 'customer.tier', exists: true })).toEqual([]); // a string key is one key, dots included
  });

  it('and, or, not combine; the same filter works in count, forgetWhere and recall', async () => {
    const { t, ids } = await tickets();
    const openUrgentOrWaiting: MetadataQuery = { or: [{ and: [{ key: 'status', eq: 'open' }, { key: 'priority', gte: 4 }] }, { key: 'status', eq: 'waiting' }] };
    expect(await ids(openUrgentOrWaiting)).toEqual(['a', 'd']);
    expect(await ids({ not: openUrgentOrWaiting })).toEqual(['b', 'c', 'e']);
    expect(await t.memory.count(ns, { where: openUrgentOrWaiting })).toBe(2);
    const hits = await t.memory.recall(ns, 'charging', { filters: { where: openUrgentOrWaiting } });
    expect(hits.hits.map((h) => h.id).sort()).toEqual(['a', 'd']);
    expect((await t.memory.forgetWhere(ns, { where: { key: 'status', eq: 'closed' } })).sort()).toEqual(['b']);
    expect(await t.memory.count(ns)).toBe(4);
  });

  it('a cursor continues only the where it came from', async () => {
    const { t } = await tickets();
    const page = await t.memory.list(ns, { where: { key: 'status', eq: 'open' }, limit: 1 });
    expect(page.nextCursor).not.toBeNull();
    await expectCode(t.memory.list(ns, { where: { key: 'status', eq: 'closed' }, limit: 1, cursor: page.nextCursor! }), 'INVALID_INPUT', 'cursor');
    const next = await t.memory.list(ns, { where: { key: 'status', eq: 'open' }, limit: 1, cursor: page.nextCursor! });
    expect(next.items.map((r) => r.id)).not.toContain(page.items[0]!.id);
  });
});

describe('metadata where: invalid queries are INVALID_INPUT with a path, nothing deleted', () => {
  const bad: Array<[unknown, string]> = [
    [{ key: 'status' }, 'where'],
    [{ status: 'open' }, 'where.status'],
    [{ key: '', eq: 1 }, 'where.key'],
    [{ key: [], eq: 1 }, 'where.key'],
    [{ key: 'p', gt: null }, 'where.gt'],
    [{ key: 'p', gt: Number.NaN }, 'where.gt'],
    [{ key: 'p', in: [] }, 'where.in'],
    [{ key: 'p', in: 'open' }, 'where.in'],
    [{ key: 'p', eq: Number.POSITIVE_INFINITY }, 'where.eq'],
    [{ key: 'p', eq: undefined }, 'where.eq'],
    [{ key: 'p', exists: 'yes' }, 'where.exists'],
    [{ and: [] }, 'where.and'],
    [{ or: [{ key: 'p', eq: 1 }, 7] }, 'where.or.1'],
    [{ not: { key: 'p' } }, 'where.not'],
    [{ and: [{ key: 'p', eq: 1 }], or: [{ key: 'p', eq: 1 }] }, 'where.and'],
    ['status = open', 'where'],
  ];
  it.each(bad)('%j', async (where, path) => {
    const { t } = await tickets();
    await expectCode(t.memory.forgetWhere(ns, { where } as never), 'INVALID_INPUT', path);
    await expectCode(t.memory.recall(ns, 'x', { filters: { where } as never }), 'INVALID_INPUT', `filters.${path}`);
    expect(await t.memory.count(ns)).toBe(5);
  });

  it('refuses queries nested too deep or too large, without stack overflow', async () => {
    const { t } = await tickets();
    let deep: MetadataQuery = { key: 'p', eq: 1 };
    for (let i = 0; i < 10_000; i++) deep = { not: deep };
    await expectCode(t.memory.count(ns, { where: deep }), 'INVALID_INPUT');
    const wide: MetadataQuery = { or: Array.from({ length: 300 }, (_, i) => ({ key: 'p', eq: i })) };
    await expectCode(t.memory.count(ns, { where: wide }), 'INVALID_INPUT', 'where');
  });
});

describe('metadata where: laws (property)', () => {
  const leaf = fc.oneof(
    fc.record({ key: fc.constantFrom('n', 's', 'x'), eq: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('a', 'b')) }),
    fc.record({ key: fc.constantFrom('n', 's'), gt: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('a', 'b')) }),
    fc.record({ key: fc.constantFrom('n', 'x'), exists: fc.boolean() }),
    fc.record({ key: fc.constantFrom('n', 's'), in: fc.array(fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('a', 'b')), { minLength: 1, maxLength: 3 }) }),
  ) as fc.Arbitrary<MetadataQuery>;
  const query = fc.letrec<{ q: MetadataQuery }>((tie) => ({
    q: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.record({ not: tie('q') }), fc.record({ and: fc.array(tie('q'), { minLength: 1, maxLength: 3 }) }), fc.record({ or: fc.array(tie('q'), { minLength: 1, maxLength: 3 }) })) as fc.Arbitrary<MetadataQuery>,
  })).q;

  it('not is the complement, and/or are intersection/union, over every record', async () => {
    const t = await openTestMemory();
    const all: string[] = [];
    for (let i = 0; i < 24; i++) {
      const metadata: JsonObject = { n: i % 4, s: 'ab'[i % 2]! };
      if (i % 3 === 0) metadata.x = i % 2;
      await t.memory.remember({ namespace: ns, id: `r${i}`, content: `record ${i}`, metadata });
      all.push(`r${i}`);
    }
    const ids = async (where: MetadataQuery) => new Set((await t.memory.list(ns, { where, limit: 100 })).items.map((r) => r.id));
    await fc.assert(
      fc.asyncProperty(query, query, async (a, b) => {
        const [sa, sb, notA, and, or] = await Promise.all([ids(a), ids(b), ids({ not: a }), ids({ and: [a, b] }), ids({ or: [a, b] })]);
        expect([...notA].sort()).toEqual(all.filter((id) => !sa.has(id)).sort());
        expect([...and].sort()).toEqual([...sa].filter((id) => sb.has(id)).sort());
        expect([...or].sort()).toEqual([...new Set([...sa, ...sb])].sort());
      }),
      { seed: fcSeed('metadata where laws'), numRuns: 60 },
    );
  });
});
