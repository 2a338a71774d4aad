import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { LAYERS, SOURCES, type JsonObject, type Layer, type ListOptions, type ListPage, type Memory, type MemoryRecord, type Namespace, type RecordFilter, type Source } from '../src/index.ts';
import { expectCode, fcSeed, openTestMemory } from './helpers.ts';

const ns: Namespace = { userId: 'u1', agentId: 'lister' };
const SECOND = 1000;

/** Every page of a list, following nextCursor; checks the page size contract on the way. */
async function allPages(memory: Memory, namespace: Namespace, options: ListOptions): Promise<{ items: MemoryRecord[]; pages: number }> {
  const items: MemoryRecord[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const page = await memory.list(namespace, { ...options, ...(cursor ? { cursor } : {}) });
    pages++;
    const limit = options.limit ?? 50;
    expect(page.items.length).toBeLessThanOrEqual(limit);
    items.push(...page.items);
    if (page.nextCursor === null) return { items, pages };
    expect(page.items).toHaveLength(limit); // only a full page has a next one
    cursor = page.nextCursor;
    if (pages > 1000) throw new Error('list did not end');
  }
}

/** JSON with sorted keys: deep equality regardless of key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function toTime(value: unknown): number {
  return value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : (value as number);
}

/** The model of list: filter, then sort by (time, id). */
function expectedList(records: MemoryRecord[], options: ListOptions, now: number): MemoryRecord[] {
  const asArray = <T,>(v: T | T[] | undefined) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);
  const sources = asArray<Source>(options.source);
  const layers = asArray<Layer>(options.layer);
  const inRange = (time: number, range: { from?: unknown; to?: unknown } | undefined) =>
    !range || ((range.from === undefined || time >= toTime(range.from)) && (range.to === undefined || time < toTime(range.to)));
  const field = options.orderBy ?? 'createdAt';
  const out = records.filter(
    (r) =>
      (r.expiresAt === null || r.expiresAt > now) &&
      (!options.tags?.any || options.tags.any.some((t) => r.tags.includes(t))) &&
      (!options.tags?.all || options.tags.all.every((t) => r.tags.includes(t))) &&
      (!options.metadata || Object.entries(options.metadata).every(([k, v]) => Object.hasOwn(r.metadata, k) && canonical(r.metadata[k]) === canonical(v))) &&
      (!sources || sources.includes(r.source)) &&
      (!layers || layers.includes(r.layer)) &&
      inRange(r.createdAt, options.createdAt) &&
      inRange(r.updatedAt, options.updatedAt),
  );
  out.sort((a, b) => a[field] - b[field] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if ((options.order ?? 'desc') === 'desc') out.reverse();
  return out;
}

describe('list() ordering', () => {
  it('orders by createdAt or updatedAt, asc or desc, ties broken by id', async () => {
    const { memory, clock } = await openTestMemory();
    const t0 = clock.now();
    // Created out of order (imports), two at the same time.
    const c = await memory.remember({ namespace: ns, id: 'c', content: 'c', createdAt: t0 - 3 * SECOND });
    const a = await memory.remember({ namespace: ns, id: 'a', content: 'a', createdAt: t0 - 1 * SECOND });
    const b = await memory.remember({ namespace: ns, id: 'b', content: 'b', createdAt: t0 - 1 * SECOND });
    const d = await memory.remember({ namespace: ns, id: 'd', content: 'd', createdAt: t0 - 2 * SECOND });
    clock.advance(SECOND);
    await memory.update(ns, 'c', { importance: 0.1 }); // c becomes the most recently updated
    clock.advance(SECOND);
    await memory.update(ns, 'd', { importance: 0.2 });
    const ids = async (options: ListOptions) => (await memory.list(ns, options)).items.map((r) => r.id);
    expect(await ids({})).toEqual(['b', 'a', 'd', 'c']); // default: createdAt desc
    expect(await ids({ order: 'asc' })).toEqual(['c', 'd', 'a', 'b']);
    expect(await ids({ orderBy: 'updatedAt' })).toEqual(['d', 'c', 'b', 'a']);
    expect(await ids({ orderBy: 'updatedAt', order: 'asc' })).toEqual(['a', 'b', 'c', 'd']);
    expect([a, b, c, d].every((r) => r.deduplicated === false)).toBe(true);
  });

  it('ULIDs keep creation order for records made in the same millisecond', async () => {
    const { memory } = await openTestMemory();
    const { results } = await memory.rememberMany(Array.from({ length: 30 }, (_, i) => ({ namespace: ns, content: `same ms ${i}` })));
    const listed = (await memory.list(ns, { order: 'asc', limit: 100 })).items.map((r) => r.id);
    expect(listed).toEqual(results.map((r) => r.id));
  });
});

describe('list() pagination and filters over 250 records (seeded)', () => {
  const TAGS = ['red', 'green', 'blue', 'plain'];
  const seed = fcSeed('list dataset and filters');
  let memory: Memory;
  let records: MemoryRecord[];
  let now: number;

  beforeAll(async () => {
    const opened = await openTestMemory();
    memory = opened.memory;
    const { clock } = opened;
    const t0 = clock.now();
    const spec = fc.sample(
      fc.array(
        fc.record({
          ageSeconds: fc.integer({ min: 0, max: 120 }), // many ties on createdAt
          tags: fc.subarray(TAGS),
          color: fc.constantFrom('red', 'green', 'blue'),
          size: fc.integer({ min: 1, max: 3 }),
          nestedFlip: fc.boolean(),
          source: fc.constantFrom(...SOURCES),
          layer: fc.constantFrom(...LAYERS),
          expires: fc.boolean(),
          updates: fc.integer({ min: 0, max: 2 }),
        }),
        { minLength: 250, maxLength: 250 },
      ),
      { seed, numRuns: 1 },
    )[0]!;
    const inputs = spec.map((s, i) => ({
      namespace: ns,
      content: `record ${i}`,
      createdAt: t0 - s.ageSeconds * SECOND,
      tags: s.tags,
      metadata: { color: s.color, size: s.size, nested: s.nestedFlip ? { a: 1, b: [1, 2] } : { b: [1, 2], a: 2 } } as JsonObject,
      source: s.source,
      layer: s.layer,
      ...(i % 10 === 0 ? { expiresAt: t0 + SECOND } : {}), // these expire below: never listed
    }));
    const { results } = await memory.rememberMany(inputs);
    await memory.rememberMany(Array.from({ length: 20 }, (_, i) => ({ namespace: { userId: 'u1' }, content: `neighbour ${i}`, tags: TAGS })));
    clock.advance(2 * SECOND);
    const byId = new Map(results.map((r) => [r.id, r.record]));
    for (const [i, s] of spec.entries()) {
      if (i % 10 === 0) continue;
      for (let u = 0; u < s.updates; u++) {
        clock.advance(7);
        const updated = await memory.update(ns, results[i]!.id, { importance: (u + 1) / 10 });
        byId.set(updated.id, updated);
      }
    }
    records = [...byId.values()];
    now = clock.now();
  });

  it('a cursor walk with each page size visits every live record exactly once, in order', async () => {
    const live = expectedList(records, {}, now);
    expect(live).toHaveLength(225);
    for (const limit of [1, 7, 50, 224, 225, 226, 1000]) {
      for (const order of ['asc', 'desc'] as const) {
        for (const orderBy of ['createdAt', 'updatedAt'] as const) {
          if (limit === 1 && (order === 'asc' || orderBy === 'updatedAt')) continue; // one walk of 225 pages is enough
          const { items, pages } = await allPages(memory, ns, { limit, order, orderBy });
          expect(items.map((r) => r.id)).toEqual(expectedList(records, { order, orderBy }, now).map((r) => r.id));
          expect(pages).toBe(Math.ceil(225 / limit)); // a last full page says there is no more
        }
      }
    }
  });

  it('explicit filters: overlapping tags.any, tags.all, nested metadata in another key order, source/layer lists, ranges', async () => {
    const updated = records.map((r) => r.updatedAt).sort((x, y) => x - y);
    const created = records.map((r) => r.createdAt).sort((x, y) => x - y);
    const from = created[60]!;
    const to = created[180]!;
    const cases: ListOptions[] = [
      { tags: { any: ['red', 'green', 'blue'] } },
      { tags: { any: ['red', 'green', 'blue'] }, order: 'asc', orderBy: 'updatedAt' },
      { tags: { all: ['red', 'blue'] } },
      { tags: { any: ['red', 'plain'], all: ['green'] } },
      { metadata: { nested: { b: [1, 2], a: 1 } } },
      { metadata: { nested: { a: 2, b: [1, 2] }, color: 'red' } },
      { metadata: { nested: { a: 1 } } }, // a part of an object is not equal to it
      { metadata: { size: 2 }, tags: { any: ['blue'] } },
      { source: ['user', 'tool'] },
      { source: 'assistant', layer: ['session', 'knowledge'] },
      { createdAt: { from, to } },
      { createdAt: { from: new Date(from), to: new Date(to).toISOString() }, order: 'asc' },
      { createdAt: { from: to, to: from } }, // empty range
      { updatedAt: { from: updated[200]! }, orderBy: 'updatedAt' },
      { updatedAt: { to: created[100]! }, orderBy: 'createdAt' },
      { createdAt: { from }, tags: { any: ['plain', 'red'] }, orderBy: 'updatedAt', order: 'asc' },
    ];
    for (const options of cases) {
      const want = expectedList(records, options, now).map((r) => r.id);
      for (const limit of [9, 1000]) {
        const { items } = await allPages(memory, ns, { ...options, limit });
        expect(items.map((r) => r.id), JSON.stringify(options)).toEqual(want);
      }
      const filter: RecordFilter = { ...options };
      delete (filter as ListOptions).order;
      delete (filter as ListOptions).orderBy;
      expect(await memory.count(ns, filter)).toBe(want.length);
    }
    // Boundaries: from is inclusive, to exclusive.
    // A time some live record was created at (the seeded data may have expired created[100]).
    const liveTimes = records.filter((r) => r.expiresAt === null || r.expiresAt > now).map((r) => r.createdAt).sort((x, y) => x - y);
    const at = liveTimes[Math.floor(liveTimes.length / 2)]!;
    const exactly = records.filter((r) => r.createdAt === at && (r.expiresAt === null || r.expiresAt > now)).length;
    expect(exactly).toBeGreaterThan(0);
    expect((await allPages(memory, ns, { createdAt: { from: at, to: at + 1 }, limit: 1000 })).items).toHaveLength(exactly);
    expect((await allPages(memory, ns, { createdAt: { from: at, to: at }, limit: 1000 })).items).toHaveLength(0);
  });

  it('random filters, orders and page sizes agree with the model (property)', async () => {
    const created = records.map((r) => r.createdAt).sort((x, y) => x - y);
    const time = fc.constantFrom(...created, now, 0);
    const optionsArb: fc.Arbitrary<ListOptions> = fc.record(
      {
        tags: fc.record({ any: fc.subarray(TAGS, { minLength: 1 }), all: fc.subarray(TAGS, { minLength: 1, maxLength: 2 }) }, { requiredKeys: [] }),
        metadata: fc.record({ color: fc.constantFrom('red', 'green', 'blue'), size: fc.integer({ min: 1, max: 3 }), nested: fc.constantFrom({ b: [1, 2], a: 1 }, { a: 2, b: [1, 2] }) }, { requiredKeys: [] }),
        source: fc.oneof(fc.constantFrom(...SOURCES), fc.subarray([...SOURCES], { minLength: 1 })),
        layer: fc.oneof(fc.constantFrom(...LAYERS), fc.subarray([...LAYERS], { minLength: 1 })),
        createdAt: fc.record({ from: time, to: time }, { requiredKeys: [] }),
        updatedAt: fc.record({ from: time, to: time }, { requiredKeys: [] }),
        orderBy: fc.constantFrom('createdAt' as const, 'updatedAt' as const),
        order: fc.constantFrom('asc' as const, 'desc' as const),
        limit: fc.integer({ min: 1, max: 40 }),
      },
      { requiredKeys: ['limit'] },
    );
    await fc.assert(
      fc.asyncProperty(optionsArb, async (options) => {
        const { items } = await allPages(memory, ns, options);
        expect(items.map((r) => r.id)).toEqual(expectedList(records, options, now).map((r) => r.id));
        for (const record of items) expect(record.namespace).toEqual(ns);
      }),
      { seed, numRuns: 60 },
    );
  });

  it('a cursor survives changes between pages: no record skipped or repeated', async () => {
    const { memory: m, clock } = await openTestMemory();
    await m.rememberMany(Array.from({ length: 20 }, (_, i) => ({ namespace: ns, id: `r${String(i).padStart(2, '0')}`, content: `r${i}`, createdAt: clock.now() - (20 - i) * SECOND })));
    const first = await m.list(ns, { limit: 5, order: 'asc' });
    expect(first.items.map((r) => r.id)).toEqual(['r00', 'r01', 'r02', 'r03', 'r04']);
    await m.forget(ns, 'r04'); // the record the cursor points after
    await m.forget(ns, 'r05'); // the next one
    await m.remember({ namespace: ns, id: 'late', content: 'late', createdAt: clock.now() }); // lands at the end
    await m.remember({ namespace: ns, id: 'early', content: 'early', createdAt: 0 }); // before the cursor: not seen
    const rest: string[] = [];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await m.list(ns, { limit: 5, order: 'asc', cursor });
      rest.push(...page.items.map((r) => r.id));
      cursor = page.nextCursor;
    }
    expect(rest).toEqual([...Array.from({ length: 14 }, (_, i) => `r${String(i + 6).padStart(2, '0')}`), 'late']);
  });
});

describe('list() limits and cursors', () => {
  it('limit is 1..1000, default 50', async () => {
    const { memory } = await openTestMemory();
    await memory.rememberMany(Array.from({ length: 1001 }, (_, i) => ({ namespace: ns, content: `r${i}` })));
    expect((await memory.list(ns)).items).toHaveLength(50);
    expect((await memory.list(ns, { limit: 1 })).items).toHaveLength(1);
    const max = await memory.list(ns, { limit: 1000 });
    expect(max.items).toHaveLength(1000);
    expect(max.nextCursor).not.toBeNull();
    expect((await memory.list(ns, { limit: 1000, cursor: max.nextCursor! })).items).toHaveLength(1);
    await expectCode(memory.list(ns, { limit: 0 }), 'INVALID_INPUT', 'limit');
    await expectCode(memory.list(ns, { limit: 1001 }), 'INVALID_INPUT', 'limit');
  });

  it('a cursor only continues the list it came from (same namespace, filters, orderBy and order)', async () => {
    const { memory } = await openTestMemory();
    await memory.rememberMany(Array.from({ length: 5 }, (_, i) => ({ namespace: ns, content: `r${i}` })));
    const byCreated = (await memory.list(ns, { limit: 2 })).nextCursor!;
    const byUpdatedAsc = (await memory.list(ns, { limit: 2, orderBy: 'updatedAt', order: 'asc' })).nextCursor!;
    await expectCode(memory.list(ns, { cursor: byCreated, orderBy: 'updatedAt' }), 'INVALID_INPUT', 'cursor');
    await expectCode(memory.list(ns, { cursor: byCreated, order: 'asc' }), 'INVALID_INPUT', 'cursor');
    await expectCode(memory.list(ns, { cursor: byUpdatedAsc }), 'INVALID_INPUT', 'cursor');
    await expectCode(memory.list(ns, { cursor: `${byCreated}x` }), 'INVALID_INPUT', 'cursor');
    expect((await memory.list(ns, { cursor: byUpdatedAsc, orderBy: 'updatedAt', order: 'asc' })).items).toHaveLength(3);
    // A cursor belongs to its namespace and filters: elsewhere it is refused, not silently reused.
    await expectCode(memory.list({ userId: 'other' }, { cursor: byCreated }), 'INVALID_INPUT', 'cursor');
    await expectCode(memory.list(ns, { cursor: byCreated, source: 'user' }), 'INVALID_INPUT', 'cursor');
    expect((await memory.list(ns, { cursor: byCreated, limit: 10 })).items).toHaveLength(3); // a new page size is fine
  });

  it('an empty namespace lists nothing, with no cursor', async () => {
    const { memory } = await openTestMemory();
    expect(await memory.list(ns)).toEqual({ items: [], nextCursor: null });
  });
});

describe('stats()', () => {
  it('counts, bytes and time span are exact, expired records only as pending', async () => {
    const { memory, clock } = await openTestMemory();
    const t0 = clock.now();
    await memory.remember({ namespace: ns, content: 'abc', source: 'user', layer: 'session', createdAt: t0 - 5000 });
    await memory.remember({ namespace: ns, content: 'é€😀', source: 'tool', layer: 'knowledge', createdAt: t0 - 9000 }); // 2 + 3 + 4 bytes
    await memory.remember({ namespace: ns, content: 'tool output', source: 'tool' });
    await memory.remember({ namespace: ns, content: 'brief', source: 'assistant', ttl: '1s', createdAt: t0 - 20_000 + 19_500 }); // expires at t0 + 500
    await memory.remember({ namespace: { userId: 'u1' }, content: 'not in this namespace' });
    clock.advance(1000);
    expect(await memory.stats(ns)).toEqual({
      count: 3,
      bySource: { user: 1, assistant: 0, tool: 2, system: 0, memory: 0 },
      byLayer: { session: 1, long_term: 1, knowledge: 1 },
      contentBytes: 3 + 9 + 11,
      oldestCreatedAt: t0 - 9000,
      newestCreatedAt: t0,
      expiredPendingSweep: 1,
      byTag: {},
    });
    expect(await memory.stats({ userId: 'nobody' })).toEqual({
      count: 0,
      bySource: { user: 0, assistant: 0, tool: 0, system: 0, memory: 0 },
      byLayer: { session: 0, long_term: 0, knowledge: 0 },
      contentBytes: 0,
      oldestCreatedAt: null,
      newestCreatedAt: null,
      expiredPendingSweep: 0,
      byTag: {},
    });
  });

  it('counts live records per tag, over more records than one read takes', async () => {
    const { memory } = await openTestMemory();
    await memory.rememberMany(Array.from({ length: 2100 }, (_, i) => ({ namespace: ns, content: `note ${i}`, tags: i % 3 === 0 ? ['crm', 'three'] : ['crm'] })));
    await memory.remember({ namespace: { userId: 'u1' }, content: 'elsewhere', tags: ['crm'] });
    const stats = await memory.stats(ns);
    expect(stats.count).toBe(2100);
    expect(stats.byTag).toEqual({ crm: 2100, three: 700 });
  });
});

describe('watch()', () => {
  it('delivers the page now, a new page after a write from a second instance, and nothing after unsubscribe', async () => {
    const a = await openTestMemory();
    const b = await openTestMemory({ place: a.place, name: a.name, clock: a.clock });
    const first = await a.memory.remember({ namespace: ns, content: 'first', tags: ['watched'] });
    await a.memory.remember({ namespace: ns, content: 'not watched' });
    const pages: ListPage[] = [];
    const stop = a.memory.watch(ns, { tags: { any: ['watched'] }, order: 'asc' }, { next: (page) => pages.push(page), error: (err) => pages.push(err as never) });
    await vi.waitFor(() => expect(pages).toHaveLength(1));
    expect(pages[0]!.items.map((r) => r.id)).toEqual([first.id]);

    a.clock.advance(1);
    const second = await b.memory.remember({ namespace: ns, content: 'second', tags: ['watched'] });
    await vi.waitFor(() => expect(pages.at(-1)!.items.map((r) => r.id)).toEqual([first.id, second.id]));
    await b.memory.update(ns, first.id, { content: 'first, edited' });
    await vi.waitFor(() => expect(pages.at(-1)!.items[0]!.content).toBe('first, edited'));
    await b.memory.forget(ns, second.id);
    await vi.waitFor(() => expect(pages.at(-1)!.items.map((r) => r.id)).toEqual([first.id]));

    stop();
    const delivered = pages.length;
    await b.memory.remember({ namespace: ns, content: 'third', tags: ['watched'] });
    await b.memory.forget(ns, first.id);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pages).toHaveLength(delivered);
    await a.memory.close();
    await b.memory.close();
  });

  it('a watch of one namespace never shows another namespace', async () => {
    const a = await openTestMemory();
    const pages: ListPage[] = [];
    const stop = a.memory.watch({ userId: 'u1' }, undefined, (page) => pages.push(page));
    await a.memory.remember({ namespace: { userId: 'u1', agentId: 'x' }, content: 'narrower' });
    await a.memory.remember({ namespace: { userId: 'u10' }, content: 'prefix' });
    await a.memory.remember({ namespace: { userId: 'u1' }, content: 'mine' });
    await vi.waitFor(() => expect(pages.at(-1)?.items.map((r) => r.content)).toEqual(['mine']));
    for (const page of pages) for (const record of page.items) expect(record.namespace).toEqual({ userId: 'u1' });
    stop();
    await a.memory.close();
  });
});
