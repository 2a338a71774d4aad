import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../src/index/bm25-index.ts';
import { VectorIndex } from '../src/index/vector-index.ts';
import { hashingEmbedder } from './hashing-embedder.ts';
import { expectCode, openTestMemory } from './helpers.ts';

/** The floor these tests ask for: some evidence of its own (recall's default is no floor, see rank/relevance.ts). */
const FLOOR = 0.01;

const ns = { userId: 'u1' };

const FACTS = [
  'Prefers phone calls over e-mail, callback Wednesday 15:00',
  'The charging port of the phone is loose',
  'Has two children, Mia and Leo',
  'Lives in Lyon since 2019',
  'Repair work order TS20240315 is open',
  'Works as a nurse on night shifts',
  'Plays the cello in an amateur orchestra',
];

async function sevenFacts(options: { embedder?: boolean } = {}) {
  const t = await openTestMemory(options.embedder ? { embedder: hashingEmbedder({ dimension: 997 }) } : {}) // 997: no two words of these texts share a dimension;
  const ids: string[] = [];
  for (const content of FACTS) ids.push((await t.memory.remember({ namespace: ns, content })).id);
  await t.memory.whenEmbedded();
  return { ...t, ids };
}

describe('recall: absolute relevance and "nothing relevant"', () => {
  it('gives every hit a relevance in 0..1 made of its lexical and semantic evidence, shown in explain', async () => {
    const t = await sevenFacts({ embedder: true });
    const { hits } = await t.memory.recall(ns, 'night shifts', { minRelevance: 0, trackAccess: false });
    expect(hits.length).toBeGreaterThan(1);
    for (const hit of hits) {
      const { lexical, semantic, relevance } = hit.explain.evidence;
      expect(hit.relevance).toBe(relevance);
      expect(relevance).toBeGreaterThanOrEqual(0);
      expect(relevance).toBeLessThanOrEqual(1);
      expect(relevance).toBeCloseTo(1 - (1 - (lexical?.share ?? 0)) * (1 - (semantic?.share ?? 0)), 12);
      if (lexical) expect(lexical.share).toBeCloseTo(Math.min(1, lexical.matched / lexical.possible), 12);
      if (semantic) {
        expect(semantic.cosine).toBe(hit.explain.cosine);
        expect(semantic.z).toBeCloseTo((semantic.cosine - semantic.mean) / semantic.sd, 12);
        expect(semantic.searched).toBe(FACTS.length);
      }
    }
    // The memory holding every word of the query holds all of its word weight.
    expect(hits[0]!.record.content).toBe('Works as a nurse on night shifts');
    expect(hits[0]!.explain.evidence.lexical!.share).toBe(1);
    expect(hits[0]!.relevance).toBe(1);
  });

  it('with a floor, answers a question nothing is about with no hits and a reason; the default (no floor) keeps the old full page', async () => {
    const t = await sevenFacts({ embedder: true });
    const none = await t.memory.recall(ns, 'which drink does she like', { minRelevance: FLOOR, trackAccess: false });
    expect(none.hits).toEqual([]);
    expect(none.reason).toMatch(/^nothing relevant/);
    const old = await t.memory.recall(ns, 'which drink does she like', { trackAccess: false });
    expect(old.hits.length).toBeGreaterThan(0);
    expect(old.reason).toBeUndefined();
    expect(Math.max(...old.hits.map((hit) => hit.relevance))).toBeLessThan(FLOOR);
    const empty = await (await openTestMemory()).memory.recall(ns, 'anything');
    expect(empty).toMatchObject({ hits: [], reason: 'nothing relevant: this namespace holds no memories' });
  });

  it('a relevance means the same in a namespace of 7 and of 300: the full match passes, the unrelated question does not', async () => {
    const small = await sevenFacts();
    const big = await sevenFacts();
    const other = { userId: 'u1' };
    for (let i = 0; i < 300; i++) await big.memory.remember({ namespace: other, content: `Ticket ${i} about the delivery of parcel ${i * 7} to the warehouse` });
    for (const t of [small, big]) {
      const cello = await t.memory.recall(ns, 'cello orchestra', { trackAccess: false });
      expect(cello.hits.map((hit) => hit.record.content)).toEqual(['Plays the cello in an amateur orchestra']);
      expect(cello.hits[0]!.relevance).toBe(1);
      expect((await t.memory.recall(ns, 'favourite pizza topping', { trackAccess: false })).hits).toEqual([]);
    }
  });

  it("with a floor, a forgotten memory's words bring back nothing: no hit only matched them", async () => {
    const t = await sevenFacts({ embedder: true });
    expect((await t.memory.recall(ns, 'cello', { minRelevance: FLOOR, trackAccess: false })).hits.map((hit) => hit.record.content)).toEqual(['Plays the cello in an amateur orchestra']);
    await t.memory.forget(ns, t.ids[6]!);
    const after = await t.memory.recall(ns, 'cello', { minRelevance: FLOOR, trackAccess: false });
    expect(after.hits).toEqual([]);
    expect(after.reason).toMatch(/^nothing relevant/);
    // Every candidate left is one no word of the query is in.
    for (const hit of (await t.memory.recall(ns, 'cello', { trackAccess: false })).hits) expect(hit.explain.evidence.lexical).toBeNull();
  });

  it('BM25 forgets a removed memory\'s words: document frequencies and the query\'s possible weight', () => {
    const index = new Bm25Index();
    index.addMany([
      { id: 'a', content: 'plays the cello' },
      { id: 'b', content: 'the cello is old' },
      { id: 'c', content: 'lives in Lyon' },
    ]);
    const before = index.coverage('cello', ['a', 'b', 'c']);
    expect([...before.matched.keys()].sort()).toEqual(['a', 'b']);
    index.remove('a');
    index.remove('b');
    const after = index.coverage('cello', ['a', 'b', 'c']);
    expect(after.matched.size).toBe(0);
    // "cello" now weighs what a word of no memory weighs (df 0 among the 1 left).
    expect(after.possible).toBeCloseTo(Math.log(1 + 1.5 / 0.5), 12);
    expect(index.search('cello', 10)).toEqual([]);
  });

  it("measures the background on every pair of a small index, and again once it grew by more than an eighth", () => {
    const index = new VectorIndex(3);
    const unit = (x: number, y: number, z: number) => {
      const n = Math.hypot(x, y, z);
      return new Float32Array([x / n, y / n, z / n]);
    };
    const vectors = [unit(1, 0, 0), unit(0, 1, 0), unit(1, 1, 0), unit(0, 0, 1), unit(1, 1, 1)];
    expect(index.background()).toBeNull();
    vectors.forEach((v, i) => index.set(`m${i}`, v));
    const cosines: number[] = [];
    for (let i = 0; i < vectors.length; i++) for (let j = i + 1; j < vectors.length; j++) cosines.push(vectors[i]!.reduce((sum, x, d) => sum + x * vectors[j]![d]!, 0));
    const mean = cosines.reduce((a, b) => a + b, 0) / cosines.length;
    const sd = Math.sqrt(cosines.reduce((a, c) => a + (c - mean) ** 2, 0) / cosines.length);
    const measured = index.background()!;
    expect(measured.pairs).toBe(10);
    expect(measured.mean).toBeCloseTo(mean, 6);
    expect(measured.sd).toBeCloseTo(sd, 6);
    index.set('m5', unit(1, 0, 1));
    expect(index.background()!.pairs).toBe(15); // 6 is more than 5 + 5/8: measured again
  });

  it.each([-0.1, 1.5, Number.NaN, '0.5', null])('refuses minRelevance %s', async (minRelevance) => {
    const t = await openTestMemory();
    await expectCode(t.memory.recall(ns, 'x', { minRelevance } as never), 'INVALID_INPUT', 'minRelevance');
  });
});
