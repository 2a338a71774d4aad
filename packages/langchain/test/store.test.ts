import 'fake-indexeddb/auto';
import { InMemoryStore, type BaseStore, type Item } from '@langchain/langgraph-checkpoint';
import { Annotation, StateGraph, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { openMemory, type Memory } from '@zeromem/core';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ZeromemStore } from '../src/index.ts';
import { testSeed } from '../../../test/kit/seed.ts';

let memory: Memory;
const home = { userId: 'alice', scope: 'langgraph' };

beforeEach(async () => {
  memory = await openMemory({ name: `lc-store-${crypto.randomUUID()}` });
});
afterEach(async () => {
  await memory.close();
});

const view = (item: Item | null) => item && { namespace: item.namespace, key: item.key, value: item.value };
const sorted = (items: Item[]) => items.map(view).sort((a, b) => JSON.stringify([a!.namespace, a!.key]).localeCompare(JSON.stringify([b!.namespace, b!.key])));

describe('ZeromemStore', () => {
  it('puts, gets, updates and deletes items by namespace tuple and key', async () => {
    const store = new ZeromemStore({ memory, namespace: home });
    await store.put(['memories', 'alice'], 'food', { text: 'likes ramen', stars: 5 });
    const first = await store.get(['memories', 'alice'], 'food');
    expect(first).toMatchObject({ namespace: ['memories', 'alice'], key: 'food', value: { text: 'likes ramen', stars: 5 } });
    await store.put(['memories', 'alice'], 'food', { text: 'likes udon', stars: 4 });
    const second = await store.get(['memories', 'alice'], 'food');
    expect(second!.value).toEqual({ text: 'likes udon', stars: 4 });
    expect(second!.createdAt).toEqual(first!.createdAt);
    expect(await store.get(['memories', 'bob'], 'food')).toBeNull();
    await store.delete(['memories', 'alice'], 'food');
    expect(await store.get(['memories', 'alice'], 'food')).toBeNull();
  });

  it('searches with a query through recall (scores), by prefix, with LangGraph filter operators', async () => {
    const store = new ZeromemStore({ memory, namespace: home });
    await store.put(['memories', 'alice'], 'food', { text: 'likes ramen with extra garlic', stars: 5 });
    await store.put(['memories', 'alice'], 'travel', { text: 'prefers window seats', stars: 3 });
    await store.put(['memories', 'bob'], 'food', { text: 'likes ramen without garlic', stars: 2 });
    const found = await store.search(['memories', 'alice'], { query: 'ramen garlic' });
    expect(found.map((i) => i.key)).toEqual(['food']);
    expect(found[0]!.score).toBeGreaterThan(0);
    const all = await store.search(['memories'], { query: 'ramen' });
    expect(all.map((i) => i.namespace[1]).sort()).toEqual(['alice', 'bob']);
    const good = await store.search(['memories'], { filter: { stars: { $gte: 3 } } });
    expect(good.map((i) => i.key).sort()).toEqual(['food', 'travel']);
    expect((await store.search(['memories'], { filter: { stars: { $gt: 3 } } })).map((i) => i.key)).toEqual(['food']);
    expect(await store.listNamespaces({ prefix: ['memories'], maxDepth: 1 })).toEqual([['memories']]);
  });

  it('a filtered query search finds a match ranked below many others (the filter runs inside recall)', async () => {
    const store = new ZeromemStore({ memory, namespace: home });
    for (let i = 0; i < 12; i++) await store.put(['reviews'], `r${i}`, { text: `ramen ramen bowl ${i}`, stars: 1 });
    await store.put(['reviews'], 'best', { text: 'a long evening walk across the old town ending with a ramen dinner', stars: 5 });
    const found = await store.search(['reviews'], { query: 'ramen', filter: { stars: { $gte: 5 } }, limit: 1 });
    expect(found.map((item) => item.key)).toEqual(['best']);
  });

  it('is a LangGraph store: a graph node reads and writes it through config.store', async () => {
    const store = new ZeromemStore({ memory, namespace: home });
    const State = Annotation.Root({ userId: Annotation<string>(), said: Annotation<string>(), recalled: Annotation<string[]>() });
    const remember = async (state: typeof State.State, config: LangGraphRunnableConfig) => {
      await config.store!.put(['memories', state.userId], crypto.randomUUID(), { text: state.said });
      const hits = await config.store!.search(['memories', state.userId], { query: state.said });
      return { recalled: hits.map((h) => String(h.value.text)) };
    };
    const graph = new StateGraph(State).addNode('remember', remember).addEdge('__start__', 'remember').compile({ store });
    const out = await graph.invoke({ userId: 'alice', said: 'my cat is called Miso' });
    expect(out.recalled).toEqual(['my cat is called Miso']);
  });

  it('behaves as InMemoryStore for the same operations (seeded property test)', async () => {
    const seed = testSeed('store conformance');
    const namespaces = [['a'], ['a', 'b'], ['a', 'c'], ['d'], ['d', 'b', 'e']];
    const ns = fc.constantFrom(...namespaces);
    const key = fc.constantFrom('k1', 'k2', 'k3');
    const value = fc.record({ n: fc.integer({ min: 0, max: 3 }), t: fc.constantFrom('x', 'y') });
    const op = fc.oneof(
      fc.record({ kind: fc.constant('put' as const), ns, key, value }),
      fc.record({ kind: fc.constant('delete' as const), ns, key }),
      fc.record({ kind: fc.constant('get' as const), ns, key }),
      fc.record({ kind: fc.constant('search' as const), prefix: fc.constantFrom<string[][]>([], ['a'], ['a', 'b'], ['d']), filter: fc.option(fc.oneof(fc.record({ t: fc.constantFrom('x', 'y') }), fc.record({ n: fc.record({ $gt: fc.integer({ min: 0, max: 3 }) }) })), { nil: undefined }) }),
      fc.record({ kind: fc.constant('list' as const), prefix: fc.option(fc.constantFrom<string[][]>(['a'], ['d'], ['*', 'b']), { nil: undefined }), suffix: fc.option(fc.constantFrom<string[][]>(['b'], ['e']), { nil: undefined }) }),
    );
    type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;
    const run = async (store: BaseStore, o: Op): Promise<unknown> => {
      switch (o.kind) {
        case 'put':
          return store.put(o.ns, o.key, o.value);
        case 'delete':
          return store.delete(o.ns, o.key);
        case 'get':
          return view(await store.get(o.ns, o.key));
        case 'search':
          return sorted(await store.search(o.prefix, { limit: 100, ...(o.filter ? { filter: o.filter } : {}) }));
        case 'list':
          return store.listNamespaces({ ...(o.prefix ? { prefix: o.prefix } : {}), ...(o.suffix ? { suffix: o.suffix } : {}), limit: 100 });
      }
    };
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 30 }), async (ops) => {
        const db = await openMemory({ name: `lc-store-prop-${runs++}-${crypto.randomUUID()}` });
        try {
          const ours = new ZeromemStore({ memory: db, namespace: home });
          const theirs = new InMemoryStore();
          for (const o of ops) {
            const expected = await run(theirs, o);
            const actual = await run(ours, o);
            if (o.kind === 'list') {
              // InMemoryStore keeps listing a namespace whose last item was deleted; a zeromem store lists the ones that hold items.
              const live = new Set((await theirs.search([], { limit: 1000 })).map((i) => JSON.stringify(i.namespace)));
              expect(actual).toEqual((expected as string[][]).filter((n) => live.has(JSON.stringify(n))));
            } else expect(actual).toEqual(expected);
          }
        } finally {
          await db.close();
        }
      }),
      { seed, numRuns: 60 },
    );
  }, 120_000);

  it('answers a batch from the state before it, then applies its writes in order (the last put of an item wins)', async () => {
    const store = new ZeromemStore({ memory, namespace: home });
    await store.put(['a'], 'k', { v: 1 });
    const [before, , , search] = (await store.batch([
      { namespace: ['a'], key: 'k' },
      { namespace: ['a'], key: 'k', value: { v: 2 } },
      { namespace: ['a'], key: 'k', value: { v: 3 } },
      { namespacePrefix: ['a'], limit: 10 },
    ])) as unknown as [Item | null, void, void, Item[]];
    expect(before!.value).toEqual({ v: 1 });
    expect(search!.map((i) => i.value)).toEqual([{ v: 1 }]);
    expect((await store.get(['a'], 'k'))!.value).toEqual({ v: 3 });
  });

  it('rejects what LangGraph rejects, and writes nothing', async () => {
    const store = new ZeromemStore({ memory, namespace: home });
    await expect(store.put([], 'k', { a: 1 })).rejects.toThrow(/namespace/i);
    await expect(store.put(['a', ''], 'k', { a: 1 })).rejects.toThrow(/namespace/i);
    await expect(store.put(Array.from({ length: 32 }, (_, i) => `l${i}`), 'k', { a: 1 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await memory.count(home)).toBe(0);
  });
});
