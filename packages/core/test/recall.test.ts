import fc from 'fast-check';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';
import { ZeromemError, openMemory, type Embedder } from '../src/index.ts';
import { hashingEmbedder } from '../../../test/kit/hashing-embedder.ts';
import { fakeClock, fcSeed, openTestMemory } from './helpers.ts';

const ns = { userId: 'u1' };
const DAY = 86_400_000;

describe('recall', () => {
  it('finds a record lexically before its vector exists, and semantically after', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const inner = hashingEmbedder();
    const slow: Embedder = { ...inner, embed: async (texts, kind) => (kind === 'document' ? gate.then(() => inner.embed(texts, kind)) : inner.embed(texts, kind)) };
    const { memory } = await openTestMemory({ embedder: slow });
    await memory.remember({ namespace: ns, content: 'The charging port is loose' });
    const early = await memory.recall(ns, 'charging port');
    expect(early.vector).toBe('no-vectors-yet');
    expect(early.pendingEmbeddings).toBe(1);
    expect(early.hits.map((h) => h.record.content)).toEqual(['The charging port is loose']);
    expect(early.hits[0]!.explain.cosine).toBeNull();
    release();
    await memory.whenEmbedded();
    const late = await memory.recall(ns, 'charging port');
    expect(late.vector).toBe('used');
    expect(late.pendingEmbeddings).toBe(0);
    expect(late.hits[0]!.explain.cosine).toBeGreaterThan(0.5);
    await memory.close();
  });

  it('answers a recall over an empty namespace without embedding the query', async () => {
    // Nothing to compare a vector with: the model need not be loaded for it (issue 32:
    // an MCP server on an empty store answers its first search without the model).
    const embedded: string[] = [];
    const { memory } = await openTestMemory({ embedder: hashingEmbedder({ onEmbed: (texts) => embedded.push(...texts) }) });
    const result = await memory.recall(ns, 'charging port');
    expect(result.hits).toEqual([]);
    expect(result.vector).toBe('no-vectors-yet');
    expect(result.reason).toBe('nothing relevant: this namespace holds no memories');
    expect(embedded).toEqual([]);
    await memory.remember({ namespace: ns, content: 'The charging port is loose' });
    await memory.whenEmbedded();
    await memory.recall(ns, 'charging port');
    expect(embedded).toEqual(['The charging port is loose', 'charging port']);
    await memory.close();
  });

  it('never embeds the same content twice, across updates and reopen', async () => {
    const embedded: string[] = [];
    const embedder = hashingEmbedder({ onEmbed: (texts) => embedded.push(...texts) });
    const { memory } = await openTestMemory({ embedder });
    const { id } = await memory.remember({ namespace: ns, content: 'Work order TS20240315' });
    await memory.remember({ namespace: { userId: 'u2' }, content: 'Work order TS20240315' }); // same content elsewhere
    await memory.whenEmbedded();
    await memory.update(ns, id, { tags: ['work-order'] }); // content unchanged
    await memory.whenEmbedded();
    await memory.recall(ns, 'order');
    expect(embedded.filter((t) => t === 'Work order TS20240315')).toHaveLength(1);
    await memory.close();
  });

  it('guards a text the model cannot embed: lexical only, no NaN anywhere', async () => {
    const { memory } = await openTestMemory({ embedder: hashingEmbedder() });
    await memory.remember({ namespace: ns, content: 'loose port' });
    await memory.whenEmbedded();
    const result = await memory.recall(ns, '!!! ???'); // no tokens: zero vector
    expect(result.vector).toBe('query-not-embeddable');
    expect(result.hits).toEqual([]);
    await memory.close();
  });

  it('ranks a more important record above an otherwise equal one', async () => {
    const { memory } = await openTestMemory({ embedder: hashingEmbedder() });
    await memory.rememberMany([
      { namespace: ns, id: 'low', content: 'charging port loose left', importance: 0.2 },
      { namespace: ns, id: 'high', content: 'charging port loose right', importance: 0.9 },
    ]);
    await memory.whenEmbedded();
    const { hits } = await memory.recall(ns, 'charging port loose', { trackAccess: false });
    expect(hits.map((h) => h.id)).toEqual(['high', 'low']);
    expect(hits[0]!.explain.importance).toBeCloseTo(1.4, 10);
    await memory.close();
  });

  it('ranks a more recent record above an otherwise equal one, relative to `now`', async () => {
    const clock = fakeClock();
    const { memory } = await openTestMemory({ clock });
    await memory.rememberMany([
      { namespace: ns, id: 'old', content: 'callback on wednesday alpha', createdAt: clock.now() - 90 * DAY },
      { namespace: ns, id: 'new', content: 'callback on wednesday bravo', createdAt: clock.now() - 1 * DAY },
    ]);
    const { hits } = await memory.recall(ns, 'callback wednesday', { trackAccess: false });
    expect(hits.map((h) => h.id)).toEqual(['new', 'old']);
    // Seen from a `now` right after the old one was written, the old one is the fresher.
    const past = await memory.recall(ns, 'callback wednesday', { now: clock.now() - 89 * DAY, trackAccess: false });
    expect(past.hits.map((h) => h.id)).toEqual(['old', 'new']);
    await memory.close();
  });

  it('raises records that keep being recalled (heat), in batched writes', async () => {
    const { memory } = await openTestMemory();
    await memory.rememberMany([
      { namespace: ns, id: 'a', content: 'phone calls preferred alpha' },
      { namespace: ns, id: 'b', content: 'phone calls preferred bravo' },
    ]);
    for (let i = 0; i < 5; i++) await memory.recall(ns, 'preferred bravo', { k: 1 });
    const { hits } = await memory.recall(ns, 'phone calls preferred', { trackAccess: false });
    expect(hits.map((h) => h.id)).toEqual(['b', 'a']);
    expect(hits[0]!.explain.heat).toBeGreaterThan(1);
    expect((await memory.get(ns, 'b'))!.accessCount).toBe(0); // not written per hit...
    await memory.close(); // ...but flushed on close (or after a second)
  });

  it('flushes access statistics in one batch', async () => {
    const { memory } = await openTestMemory({ name: 'heat' });
    await memory.remember({ namespace: ns, id: 'a', content: 'phone calls preferred' });
    await memory.recall(ns, 'phone');
    await memory.recall(ns, 'calls');
    expect((await memory.get(ns, 'a'))!.accessCount).toBe(0); // nothing written on the recall's path
    // One flush about a second later writes both accesses (polled: a loaded machine may be late).
    await vi.waitFor(async () => expect((await memory.get(ns, 'a'))!.accessCount).toBe(2), { timeout: 10_000, interval: 100 });
    const record = await memory.get(ns, 'a');
    expect(record!.version).toBe(1); // access is not an edit
    await memory.close();
  });

  it('explain adds up to the score, and hits are ordered by it', async () => {
    const { memory } = await openTestMemory({ embedder: hashingEmbedder() });
    await memory.rememberMany(
      ['charging port loose', 'port replaced', 'prefers phone calls', 'charging cable lost', 'work order open'].map((content, i) => ({
        namespace: ns,
        content,
        importance: i / 5,
      })),
    );
    await memory.whenEmbedded();
    const { hits } = await memory.recall(ns, 'charging port', { weights: { text: 0.3, vector: 0.7 } });
    expect(hits.length).toBeGreaterThan(1);
    for (const hit of hits) {
      const { explain } = hit;
      expect(explain.contributions.text + explain.contributions.vector).toBeCloseTo(hit.score, 12);
      expect(explain.relevance * explain.importance * explain.recency * explain.heat).toBeCloseTo(hit.score, 12);
      expect(explain.relevance).toBeCloseTo(0.3 * explain.textScore + 0.7 * explain.vectorScore, 12);
    }
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
    await memory.close();
  });

  it('a filter never leaks (seeded property)', async () => {
    const seed = fcSeed('a recall filter never leaks');
    const { memory, clock } = await openTestMemory({ embedder: hashingEmbedder() });
    const words = ['port', 'phone', 'call', 'order', 'loose', 'cable', 'wednesday'];
    const tags = ['a', 'b', 'c'];
    const layers = ['session', 'long_term', 'knowledge'] as const;
    const inputs = Array.from({ length: 120 }, (_, i) => ({
      namespace: i % 7 === 0 ? { userId: 'other' } : ns,
      content: `${words[i % 7]} ${words[(i * 3) % 7]} ${words[(i * 5) % 7]} #${i}`,
      tags: [tags[i % 3]!, ...(i % 4 === 0 ? [tags[(i + 1) % 3]!] : [])],
      layer: layers[i % 3]!,
      ...(i % 5 === 0 ? { ttl: 1000 } : {}),
    }));
    await memory.rememberMany(inputs);
    await memory.whenEmbedded();
    clock.advance(2000); // every 5th record has expired
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(words, { minLength: 1 }),
        fc.option(fc.constantFrom(...tags), { nil: undefined }),
        fc.option(fc.subarray([...layers], { minLength: 1 }), { nil: undefined }),
        async (queryWords, tag, layerSet) => {
          const { hits } = await memory.recall(ns, queryWords.join(' '), {
            k: 50,
            trackAccess: false,
            ...(tag ? { filters: { tags: { any: [tag] } } } : {}),
            ...(layerSet ? { layers: layerSet } : {}),
          });
          for (const hit of hits) {
            expect(hit.record.namespace).toEqual(ns);
            expect(hit.record.expiresAt === null || hit.record.expiresAt > clock.now()).toBe(true);
            if (tag) expect(hit.record.tags).toContain(tag);
            if (layerSet) expect(layerSet).toContain(hit.record.layer);
          }
        },
      ),
      { seed, numRuns: 60 },
    );
    await memory.close();
  });

  it('stops recalling a memory the moment it goes cold or expires while its index is loaded', async () => {
    const { memory, clock } = await openTestMemory({ embedder: hashingEmbedder(), lifecycle: { coldAfter: '20d', coldBelowImportance: 0.3 } });
    const brief = await memory.remember({ namespace: ns, content: 'printer toner order', ttl: '30d', importance: 0.9 });
    const faint = await memory.remember({ namespace: ns, content: 'printer paper order', importance: 0.2 });
    const kept = await memory.remember({ namespace: ns, content: 'printer cable order', importance: 0.9 });
    await memory.whenEmbedded();
    const found = async (options = {}) => (await memory.recall(ns, 'printer order', { trackAccess: false, ...options })).hits.map((h) => h.id).sort();
    expect(await found()).toEqual([brief.id, faint.id, kept.id].sort());
    clock.advance(20 * DAY);
    expect(await memory.retier({ namespace: ns })).toMatchObject({ cooled: 1 });
    expect(await found()).toEqual([brief.id, kept.id].sort());
    expect(await found({ includeCold: true })).toEqual([brief.id, faint.id, kept.id].sort());
    clock.advance(10 * DAY); // the ttl ends now
    expect(await found()).toEqual([kept.id]);
    expect(await found({ includeCold: true })).toEqual([faint.id, kept.id].sort());
    await memory.close();
  });

  it('sees writes, updates and forgets of another instance on the same database', async () => {
    const clock = fakeClock();
    const shared = new IDBFactory(); // one factory: two instances on one database, like two tabs
    const one = await openMemory({ name: 'tabs', indexedDB: shared, IDBKeyRange, clock });
    const two = await openMemory({ name: 'tabs', indexedDB: shared, IDBKeyRange, clock });
    await one.remember({ namespace: ns, id: 'x', content: 'loose charging port' });
    expect((await two.recall(ns, 'charging')).hits.map((h) => h.id)).toEqual(['x']);
    await one.update(ns, 'x', { content: 'replaced charging port' });
    expect((await two.recall(ns, 'replaced')).hits.map((h) => h.id)).toEqual(['x']);
    expect((await two.recall(ns, 'loose')).hits).toEqual([]);
    await one.forget(ns, 'x');
    expect((await two.recall(ns, 'charging')).hits).toEqual([]);
    await Promise.all([one.close(), two.close()]);
  });

  it('rejects bad input with coded errors', async () => {
    const { memory } = await openTestMemory();
    await expect(memory.recall(undefined as never, 'x')).rejects.toMatchObject({ code: 'NAMESPACE_REQUIRED' });
    for (const [query, options, path] of [
      [42, undefined, 'query'],
      ['x', { k: 0 }, 'k'],
      ['x', { k: 1.5 }, 'k'],
      ['x', { layers: ['nope'] }, 'layers.0'],
      ['x', { weights: { text: -1 } }, 'weights.text'],
      ['x', { weights: { text: 0, vector: 0 } }, 'weights'],
      ['x', { filters: { tags: { any: [] } } }, 'filters.tags.any'],
      ['x', { now: 'yesterday' }, 'now'],
      ['x', { bogus: 1 }, 'bogus'],
    ] as const) {
      const err = await memory.recall(ns, query as never, options as never).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ZeromemError);
      expect((err as ZeromemError).code).toBe('INVALID_INPUT');
      expect((err as ZeromemError).details.issues?.[0]?.path).toBe(path);
    }
    await memory.close();
  });
});

describe('changing the model', () => {
  it('re-embeds stored records in the background with visible progress, and recalls with the new vectors', async () => {
    const clock = fakeClock();
    const factory = new IDBFactory();
    const first = await openMemory({ name: 'model-change', indexedDB: factory, IDBKeyRange, clock, embedder: hashingEmbedder({ dimension: 32 }) });
    await first.rememberMany(Array.from({ length: 1500 }, (_, i) => ({ namespace: ns, content: `fact ${i} about the charging port` })));
    await first.whenEmbedded();
    await first.close();

    const embedded: string[] = [];
    const second = await openMemory({
      name: 'model-change',
      indexedDB: factory,
      IDBKeyRange,
      clock,
      embedder: hashingEmbedder({ dimension: 48, onEmbed: (texts) => embedded.push(...texts) }),
    });
    await vi.waitFor(() => expect(second.pendingEmbeddings() + embedded.length).toBe(1500), { timeout: 10_000, interval: 20 });
    await second.whenEmbedded();
    expect(new Set(embedded).size).toBe(1500);
    const { vector, hits } = await second.recall(ns, 'charging port', { k: 3 });
    expect(vector).toBe('used');
    expect(hits[0]!.explain.cosine).not.toBeNull();
    await second.close();

    // Reopened with the same model: nothing to embed again.
    const third = await openMemory({ name: 'model-change', indexedDB: factory, IDBKeyRange, clock, embedder: hashingEmbedder({ dimension: 48, onEmbed: (texts) => embedded.push(...texts) }) });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await third.whenEmbedded();
    expect(embedded.filter((text) => text.startsWith('fact '))).toHaveLength(1500); // the 1501st was the query
    await third.close();
  });
});
