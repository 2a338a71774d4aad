import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../src/search/bm25-index.ts';
import { VectorIndex } from '../src/search/vector-index.ts';
import { DEFAULT_MIN_RELEVANCE, tokenize, type Embedder } from '../src/index.ts';
import { hashingEmbedder, tokenBucket } from '../../../test/kit/hashing-embedder.ts';
import { expectCode, fakeClock, openTestMemory } from './helpers.ts';

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
      const { lexical, semantic, agreement, relevance } = hit.explain.evidence;
      expect(hit.relevance).toBe(relevance);
      expect(relevance).toBeGreaterThanOrEqual(0);
      expect(relevance).toBeLessThanOrEqual(1);
      // The word share counts as far as the meaning agrees: Φ(z) of the cosine (1 when a cosine of 0 says nothing).
      expect(agreement).toBe(semantic && semantic.cosine !== 0 ? semantic.above : 1);
      expect(relevance).toBeCloseTo(1 - (1 - (lexical?.share ?? 0) * agreement) * (1 - (semantic?.share ?? 0)), 12);
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

  it('by default answers a question nothing is about with no hits and a reason; minRelevance 0 keeps the old full page', async () => {
    expect(DEFAULT_MIN_RELEVANCE).toBeGreaterThan(0);
    const t = await sevenFacts({ embedder: true });
    const none = await t.memory.recall(ns, 'which drink does she like', { trackAccess: false });
    expect(none.hits).toEqual([]);
    expect(none.reason).toMatch(/^nothing relevant/);
    const old = await t.memory.recall(ns, 'which drink does she like', { minRelevance: 0, trackAccess: false });
    expect(old.hits.length).toBeGreaterThan(0);
    expect(old.reason).toBeUndefined();
    expect(Math.max(...old.hits.map((hit) => hit.relevance))).toBeLessThan(DEFAULT_MIN_RELEVANCE);
    const empty = await (await openTestMemory()).memory.recall(ns, 'anything');
    expect(empty).toMatchObject({ hits: [], reason: 'nothing relevant: this namespace holds no memories' });
  });

  it('an empty answer found by words alone says that meanings were not compared, and why', async () => {
    const lexicalOnly = await sevenFacts();
    const words = await lexicalOnly.memory.recall(ns, 'favourite beverage', { trackAccess: false });
    expect(words).toMatchObject({ hits: [], vector: 'no-embedder' });
    expect(words.reason).toBe('nothing relevant: no memory shares a word with the query; meanings were not compared (vector: no-embedder)');
    const both = await sevenFacts({ embedder: true });
    const meanings = await both.memory.recall(ns, 'favourite beverage', { trackAccess: false });
    expect(meanings.vector).toBe('used');
    expect(meanings.hits).toEqual([]);
    expect(meanings.reason).toMatch(/^nothing relevant: (no memory shares a word or a meaning with the query|the best match's relevance)/);
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

  it('by default the floor is the answer\'s: an answer with evidence keeps its page, each hit with its relevance; a minRelevance given trims each hit', async () => {
    const t = await sevenFacts({ embedder: true });
    const page = await t.memory.recall(ns, 'night shifts', { trackAccess: false });
    expect(page.hits[0]!.record.content).toBe('Works as a nurse on night shifts');
    expect(page.hits.length).toBeGreaterThan(1);
    expect(page.hits.some((hit) => hit.relevance < DEFAULT_MIN_RELEVANCE)).toBe(true);
    const trimmed = await t.memory.recall(ns, 'night shifts', { minRelevance: DEFAULT_MIN_RELEVANCE, trackAccess: false });
    expect(trimmed.hits.map((hit) => hit.id)).toEqual(page.hits.filter((hit) => hit.relevance >= DEFAULT_MIN_RELEVANCE).map((hit) => hit.id));
  });

  it('words naming the subject every memory is about ("the user", 用户) are no evidence: "which drink does the user like" finds nothing among facts about the user', async () => {
    const t = await openTestMemory();
    for (const content of [...FACTS.slice(0, 6), 'The user plays the cello', '用户喜欢喝无糖咖啡']) await t.memory.remember({ namespace: ns, content });
    const drink = await t.memory.recall(ns, 'which drink does the user like', { trackAccess: false });
    expect(drink.hits).toEqual([]);
    expect(drink.reason).toMatch(/^nothing relevant/);
    // Ranked without a floor, the cello still comes up on the word, with no lexical evidence.
    const all = await t.memory.recall(ns, 'which drink does the user like', { minRelevance: 0, trackAccess: false });
    expect(all.hits.map((hit) => hit.record.content)).toContain('The user plays the cello');
    for (const hit of all.hits) expect(hit.explain.evidence.lexical).toBeNull();
    expect((await t.memory.recall(ns, '用户喝什么', { minRelevance: 0, trackAccess: false })).hits[0]?.record.content).toBe('用户喜欢喝无糖咖啡');
    // The words that are about something still count in full.
    const cello = await t.memory.recall(ns, 'is the cello what the user plays', { trackAccess: false });
    expect(cello.hits.map((hit) => hit.record.content)).toEqual(['The user plays the cello']);
    expect(cello.hits[0]!.relevance).toBe(1);
  });

  it("a keyed fact's current version keeps its evidence however many versions came before (lexical weight counts what recall can return)", async () => {
    const clock = fakeClock();
    const t = await openTestMemory({ clock });
    const query = 'phone e-mail Lyon Paris 5 GB 20 GB';
    let current = '';
    for (let i = 0; i < 13; i++) {
      current = (await t.memory.remember({ namespace: ns, key: 'home.city', content: i % 2 ? 'Paris' : 'Lyon' })).id;
      clock.advance(86_400_000);
    }
    const hits = (await t.memory.recall(ns, query, { filters: { key: 'home.city' }, trackAccess: false })).hits;
    expect(hits.map((hit) => hit.id)).toEqual([current]);
    // The closed versions are not what the words are weighed against: one current memory, "lyon" in it.
    const lexical = hits[0]!.explain.evidence.lexical!;
    const absent = Math.log(1 + 1.5 / 0.5);
    const lyon = Math.log(1 + 0.5 / 1.5);
    const words = tokenize(query);
    const held = tokenize('Lyon home city').filter((word) => words.includes(word)).length;
    expect(lexical.possible).toBeCloseTo(held * lyon + (words.length - held) * absent, 9);
    // Asked with every version, all of them count.
    const all = await t.memory.recall(ns, query, { includeClosed: true, k: 20, trackAccess: false });
    expect(all.hits).toHaveLength(13);
  });

  it("a forgotten memory's words bring back nothing: no hit only matched them", async () => {
    const t = await sevenFacts({ embedder: true });
    expect((await t.memory.recall(ns, 'cello', { trackAccess: false })).hits[0]?.record.content).toBe('Plays the cello in an amateur orchestra');
    await t.memory.forget(ns, t.ids[6]!);
    const after = await t.memory.recall(ns, 'cello', { trackAccess: false });
    expect(after.hits).toEqual([]);
    expect(after.reason).toMatch(/^nothing relevant/);
    // Every candidate left is one no word of the query is in.
    for (const hit of (await t.memory.recall(ns, 'cello', { minRelevance: 0, trackAccess: false })).hits) expect(hit.explain.evidence.lexical).toBeNull();
    // Nor does a word the forgotten memory shared with others bring back more than those others.
    const orchestra = await t.memory.recall(ns, 'amateur orchestra', { trackAccess: false });
    expect(orchestra.hits).toEqual([]);
  });

  it('in a namespace of two embedding spaces, a query is weighed against its own space: an English fact among Chinese ones keeps its semantic evidence', async () => {
    const t = await openTestMemory({ embedder: twoSpaces() });
    const chinese = ['用户偏好圆通快递', '用户对花生过敏', '用户喜欢喝无糖咖啡', '用户住在上海', '用户每周三下午去健身房', '用户的猫叫小白', '用户上个月换了新手机', '用户周末喜欢去河边散步', '用户喜欢听爵士乐'];
    const english = 'Prefers phone over e-mail and letters on weekdays';
    for (const content of [...chinese, english]) await t.memory.remember({ namespace: ns, content });
    await t.memory.whenEmbedded();
    // No word in common: only the (toy) model says "in touch" is about the phone. Its cosine
    // (1/3) is low next to the Chinese model's pairs (8 dimensions: ~0.7), which are not its scale.
    const call = await t.memory.recall(ns, 'how should we get in touch', { trackAccess: false });
    expect(call.hits[0]?.record.content).toBe(english);
    expect(call.hits[0]!.relevance).toBeGreaterThanOrEqual(DEFAULT_MIN_RELEVANCE);
    const semantic = call.hits[0]!.explain.evidence.semantic!;
    expect(semantic.searched).toBe(1); // the English vectors: one
  });

  it('a word in common is no evidence when the meaning is further from the query than two unrelated memories of the namespace: a question asked in the wrong namespace finds nothing', async () => {
    const t = await openTestMemory({ embedder: topics() });
    const pets = { userId: 'pets' };
    const shop = { userId: 'shop' };
    const query = 'which cordless drill did I buy at the hardware store today';
    for (const content of PETS) {
      await t.memory.remember({ namespace: pets, content });
      await t.memory.remember({ namespace: shop, content });
    }
    const drill = (await t.memory.remember({ namespace: shop, content: 'Bought a cordless drill at the hardware store today' })).id;
    await t.memory.whenEmbedded();
    // Only "today" is shared with the pets; their meaning is far below how alike the pets are to each other.
    const elsewhere = await t.memory.recall(pets, query, { trackAccess: false });
    expect(elsewhere.hits).toEqual([]);
    expect(elsewhere.reason).toMatch(/^nothing relevant/);
    const page = await t.memory.recall(pets, query, { minRelevance: 0, trackAccess: false });
    const today = page.hits.find((hit) => hit.record.content === 'Fed the cat today')!;
    const { lexical, semantic, agreement, relevance } = today.explain.evidence;
    expect(lexical!.share).toBeGreaterThan(DEFAULT_MIN_RELEVANCE); // the word alone would have vouched for it
    expect(semantic!.z).toBeLessThan(0);
    expect(agreement).toBeCloseTo(semantic!.above, 12);
    expect(relevance).toBeCloseTo(1 - (1 - lexical!.share * agreement) * (1 - semantic!.share), 12);
    expect(relevance).toBeLessThan(DEFAULT_MIN_RELEVANCE);
    // Where the question's own words and meaning are, it is answered, the drill first.
    const home = await t.memory.recall(shop, query, { trackAccess: false });
    expect(home.hits[0]?.id).toBe(drill);
    expect(home.hits[0]!.relevance).toBeGreaterThan(0.5);
    // A one-turn conversation is one text; a longer one mixes its turns' meanings, off the memory pairs' scale: its words stand alone.
    expect((await t.memory.recall(pets, [{ role: 'user', content: query }], { trackAccess: false })).hits).toEqual([]);
    const talk = await t.memory.recall(pets, [{ role: 'assistant', content: 'How can I help?' }, { role: 'user', content: query }], { minRelevance: 0, trackAccess: false });
    for (const hit of talk.hits) expect(hit.explain.evidence.agreement).toBe(1);
    // Without a model to say what the words mean, the shared word stands alone, as before.
    const lexicalOnly = await openTestMemory();
    for (const content of PETS) await lexicalOnly.memory.remember({ namespace: pets, content });
    expect((await lexicalOnly.memory.recall(pets, query, { trackAccess: false })).hits.length).toBeGreaterThan(0);
  });

  it('VectorIndex.background(query) measures the pairs of the query\'s embedding space only, and counts its vectors', () => {
    const index = new VectorIndex(32);
    const at = (offset: number, values: number[]) => {
      const v = new Float32Array(32);
      const n = Math.hypot(...values);
      values.forEach((x, i) => (v[offset + i] = x / n));
      return v;
    };
    const first = [at(0, [1, 0, 0]), at(0, [0, 1, 0]), at(0, [1, 1, 0]), at(0, [1, 1, 1])];
    const second = [at(16, [1, 0]), at(16, [1, 1]), at(16, [0, 1]), at(16, [2, 1]), at(16, [1, 2]), at(16, [3, 1])];
    first.forEach((v, i) => index.set(`a${i}`, v));
    second.forEach((v, i) => index.set(`b${i}`, v));
    const pairs = (vectors: Float32Array[]) => {
      const cosines: number[] = [];
      for (let i = 0; i < vectors.length; i++) for (let j = i + 1; j < vectors.length; j++) cosines.push(vectors[i]!.reduce((sum, x, d) => sum + x * vectors[j]![d]!, 0));
      const mean = cosines.reduce((a, b) => a + b, 0) / cosines.length;
      return { mean, sd: Math.sqrt(cosines.reduce((a, c) => a + (c - mean) ** 2, 0) / cosines.length), pairs: cosines.length };
    };
    for (const [query, space] of [
      [at(0, [0, 0, 1]), first],
      [at(16, [1, 3]), second],
    ] as const) {
      const measured = index.background(query)!;
      const expected = pairs(space);
      expect(measured.pairs).toBe(expected.pairs);
      expect(measured.mean).toBeCloseTo(expected.mean, 6);
      expect(measured.sd).toBeCloseTo(expected.sd, 6);
      expect(measured.vectors).toBe(space.length);
    }
    expect(index.background()!.vectors).toBe(10);
    // A space that comes after the background was measured (a first Chinese memory in an
    // English store, say) is found at once, not after the index grew by an eighth.
    const big = new VectorIndex(32);
    for (let i = 0; i < 40; i++) big.set(`a${i}`, at(0, [1, i + 1, 0]));
    expect(big.background(at(16, [1, 1])).vectors).toBe(0);
    second.slice(0, 3).forEach((v, i) => big.set(`b${i}`, v));
    expect(big.background(at(16, [1, 1]))).toMatchObject({ vectors: 3, pairs: 3 });
    expect(big.background(at(0, [1, 1, 0])).vectors).toBe(40);
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
    expect(index.background()).toEqual({ mean: 0, sd: 0, pairs: 0, vectors: 0 });
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

/**
 * A toy bilingual embedder laid out like the bundled one: Latin text in dimensions 0..63,
 * Han text in 64..71 (each its own model space, the other block zero; the Chinese one so
 * small its unrelated pairs stand high). Its English "model" knows one synonym set, so a
 * query can match a memory by meaning alone.
 */
function twoSpaces(): Embedder {
  const concept: Record<string, string> = { touch: 'call', phone: 'call' };
  return {
    modelId: 'test-two-spaces',
    dimension: 72,
    async embed(texts) {
      return texts.map((text) => {
        const vector = new Float32Array(72);
        const han = /\p{Script=Han}/u.test(text);
        for (const token of tokenize(text)) {
          const word = concept[token] ?? token;
          vector[han ? 64 + tokenBucket(word, 8) : tokenBucket(word, 64)]! += 1;
        }
        return vector;
      });
    },
  };
}

/** A namespace about one's pets: its memories are alike in meaning (see {@link topics}); three say "today". */
const PETS = [
  'Fed the cat today',
  'Walked the dog in the park',
  'The vet says the dog is healthy',
  'The cat sleeps on the sofa',
  'Took the dog to the vet today',
  'Bought cat food and a new collar',
  'The dog chased a squirrel in the park',
  'Brushed the cat today',
  'The puppy learned to sit',
  'The kitten plays with yarn',
];

/**
 * A toy model of meaning: each word of a small vocabulary points along its topic's axis
 * (pets 0, hardware 1), so texts of one topic point the same way; every other word is
 * hashed into dimensions 2..17, so a shared word ("today") still brings two texts a little together.
 */
function topics(): Embedder {
  const topic: Record<string, number> = {
    cat: 0, dog: 0, vet: 0, fed: 0, park: 0, sofa: 0, collar: 0, squirrel: 0, puppi: 0, kitten: 0, yarn: 0, brush: 0, walk: 0,
    drill: 1, cordless: 1, hardwar: 1, store: 1, bui: 1, bought: 1,
  };
  return {
    modelId: 'test-topics',
    dimension: 18,
    async embed(texts) {
      return texts.map((text) => {
        const vector = new Float32Array(18);
        for (const token of tokenize(text)) {
          if (topic[token] !== undefined) {
            vector[topic[token]!]! += 1;
            continue;
          }
          vector[2 + tokenBucket(token, 16)]! += 0.5;
        }
        return vector;
      });
    },
  };
}
