import { describe, expect, it } from 'vitest';
import type { Embedder } from '../src/index.ts';
import { openTestMemory } from './helpers.ts';

const ns = { userId: 'u1' };
const DAY = 86_400_000;

/** An embedder that knows a fixed vector per text (unknown texts: not embeddable). */
function fixedEmbedder(vectors: Record<string, number[]>): Embedder {
  return {
    modelId: 'test-fixed-3',
    dimension: 3,
    async embed(texts) {
      return texts.map((text) => (vectors[text] ? Float32Array.from(vectors[text]) : null));
    },
  };
}

/** A unit vector at cosine `c` to [1, 0, 0], turned by `side` around the axis. */
function atCosine(c: number, side = 0): number[] {
  const s = Math.sqrt(1 - c * c);
  return [c, s * Math.cos(side), s * Math.sin(side)];
}

describe('recall signals', () => {
  it('ranks the courier preference first for 用户喜欢哪家快递 (the question asks about 快递)', async () => {
    const { memory } = await openTestMemory();
    await memory.rememberMany([
      { namespace: ns, id: 'courier', content: '用户偏好圆通快递' },
      { namespace: ns, id: 'style', content: '用户喜欢简洁的回复' },
    ]);
    const result = await memory.recall(ns, '用户喜欢哪家快递', { trackAccess: false });
    expect(result.hits.map((hit) => hit.id)).toEqual(['courier', 'style']);
    expect(result.signals.focus).toEqual(['快递']);
    expect(result.hits[0]!.explain.focus).toBeCloseTo(1.25, 12);
    expect(result.hits[1]!.explain.focus).toBe(1);
    await memory.close();
  });

  it('finds Simplified memories from a Traditional question and reads its focus word (用戶喜歡哪家快遞)', async () => {
    const { memory } = await openTestMemory();
    await memory.rememberMany([
      { namespace: ns, id: 'courier', content: '用户偏好圆通快递' },
      { namespace: ns, id: 'style', content: '用户喜欢简洁的回复' },
      { namespace: ns, id: 'other', content: '今天天气很好' },
    ]);
    const result = await memory.recall(ns, '用戶喜歡哪家快遞', { trackAccess: false });
    expect(result.hits.map((hit) => hit.id)).toEqual(['courier', 'style']);
    expect(result.signals.focus).toEqual(['快递']);
    expect(result.hits[0]!.explain.focus).toBeCloseTo(1.25, 12);
    const back = await memory.recall(ns, '簡潔', { trackAccess: false });
    expect(back.hits.map((hit) => hit.id)).toEqual(['style']);
    await memory.close();
  });

  it('finds Traditional memories from a Simplified question', async () => {
    const { memory } = await openTestMemory();
    await memory.rememberMany([
      { namespace: ns, id: 'tw', content: '我住在臺灣，喜歡衛生的環境' },
      { namespace: ns, id: 'other', content: '用户喜欢简洁的回复' },
    ]);
    const result = await memory.recall(ns, '台湾', { trackAccess: false });
    expect(result.hits.map((hit) => hit.id)).toEqual(['tw']);
    await memory.close();
  });

  it('prefers memories made at the time the query names ("two months ago", 三天前), relative to `now`', async () => {
    const { memory, clock } = await openTestMemory();
    const now = clock.now();
    await memory.rememberMany([
      { namespace: ns, id: 'then', content: 'bought a new kitchen gadget', createdAt: now - 61 * DAY },
      { namespace: ns, id: 'lately', content: 'bought another kitchen gadget', createdAt: now - 3 * DAY },
    ]);
    const plain = await memory.recall(ns, 'kitchen gadget', { trackAccess: false });
    expect(plain.hits.map((hit) => hit.id)).toEqual(['lately', 'then']); // recency alone
    expect(plain.signals.timeWindows).toEqual([]);

    const dated = await memory.recall(ns, 'Which kitchen gadget did I buy two months ago?', { trackAccess: false });
    expect(dated.hits.map((hit) => hit.id)).toEqual(['then', 'lately']);
    expect(dated.signals.timeWindows.map((window) => window.text)).toEqual(['two months ago']);
    expect(dated.hits[0]!.explain.time).toBeCloseTo(1.3, 12);

    const zh = await memory.recall(ns, '我三天前买的 kitchen gadget', { trackAccess: false });
    expect(zh.hits.map((hit) => hit.id)).toEqual(['lately', 'then']);
    expect(zh.signals.timeWindows.some((window) => window.text === '三天前')).toBe(true);
    expect(zh.hits[0]!.explain.time).toBeCloseTo(1.3, 12);

    // Seen from a `now` two months earlier, "three days ago" is a different day.
    const past = await memory.recall(ns, '三天前 kitchen gadget', { now: now - 58 * DAY, trackAccess: false });
    expect(past.hits.map((hit) => hit.id)).toEqual(['then', 'lately']);
    await memory.close();
  });

  it('prefers the user\'s own words when the query says "I" or "my", without dropping the others', async () => {
    const { memory } = await openTestMemory();
    await memory.rememberMany([
      { namespace: ns, id: 'a-assistant', content: 'favourite colour green alpha', source: 'assistant' },
      { namespace: ns, id: 'b-user', content: 'favourite colour green bravo', source: 'user' },
    ]);
    const neutral = await memory.recall(ns, 'favourite colour green', { trackAccess: false });
    expect(neutral.signals.firstPerson).toBe(false);
    expect(neutral.hits.map((hit) => hit.id)).toEqual(['a-assistant', 'b-user']); // a tie, by id

    const mine = await memory.recall(ns, 'What is my favourite colour? green?', { trackAccess: false });
    expect(mine.signals.firstPerson).toBe(true);
    expect(mine.hits.map((hit) => hit.id)).toEqual(['b-user', 'a-assistant']);
    expect(mine.hits[0]!.explain.speaker).toBeCloseTo(1.3, 12);
    expect(mine.hits[1]!.explain.speaker).toBe(1);

    const off = await memory.recall(ns, 'What is my favourite colour? green?', { trackAccess: false, weights: { speaker: 0 } });
    expect(off.hits.map((hit) => hit.id)).toEqual(['a-assistant', 'b-user']);
    await memory.close();
  });

  it('a flat vector side cannot push the only lexical match down', async () => {
    // Every memory is about equally similar to the query (0.79-0.85): min-max would give the
    // lexical match a vector score of 0 and the others 1, and rank it last.
    const embedder = fixedEmbedder({
      'parcel went to the locker': atCosine(0.79, 0),
      'weather was mild today': atCosine(0.85, 1),
      'meeting moved to noon': atCosine(0.84, 2),
      'locker parcel': [1, 0, 0],
    });
    const { memory } = await openTestMemory({ embedder });
    await memory.rememberMany(['parcel went to the locker', 'weather was mild today', 'meeting moved to noon'].map((content) => ({ namespace: ns, content })));
    await memory.whenEmbedded();
    const { hits, vector } = await memory.recall(ns, 'locker parcel', { trackAccess: false, weights: { text: 0.4, vector: 0.6 } });
    expect(vector).toBe('used');
    expect(hits[0]!.record.content).toBe('parcel went to the locker');
    expect(hits[0]!.explain.vectorScore).toBeCloseTo(0.79 / 0.85, 5);
    await memory.close();
  });

  it('finds a short turn through the turn next to it, and only conversation turns borrow', async () => {
    const { memory } = await openTestMemory();
    await memory.rememberMany([
      { namespace: ns, id: 't1', content: 'Which colour would you pick for the kitchen walls?', source: 'user', metadata: { session: 's1', seq: 1 } },
      { namespace: ns, id: 't2', content: 'Sage green or a warm white both suit a small kitchen.', source: 'assistant', metadata: { session: 's1', seq: 2 } },
      { namespace: ns, id: 't3', content: 'Sage it is, painting this weekend.', source: 'user', metadata: { session: 's1', seq: 3 } },
      { namespace: ns, id: 'other-session', content: 'Booked the dentist.', source: 'user', metadata: { session: 's2', seq: 4 } },
      { namespace: ns, id: 'fact', content: 'Has a small balcony.', source: 'memory', metadata: { session: 's1', seq: 4 } },
    ]);
    const { hits } = await memory.recall(ns, 'warm white kitchen', { trackAccess: false });
    const byId = new Map(hits.map((hit) => [hit.id, hit]));
    expect(byId.get('t3')?.explain.bm25).toBeNull(); // not one of its own words matches...
    expect(byId.get('t3')!.explain.contextBm25).toBeCloseTo(byId.get('t2')!.explain.bm25!, 9); // ...its neighbour's do (a short turn: all of them)
    expect(byId.get('t1')!.explain.contextBm25).toBeCloseTo(byId.get('t2')!.explain.bm25!, 9);
    expect(byId.get('t1')!.explain.bm25).toBeGreaterThan(0);
    expect(byId.has('other-session')).toBe(false);
    expect(byId.has('fact')).toBe(false); // a fact is not a turn: no neighbours
    for (const { score, explain } of hits) expect(explain.contributions.text + explain.contributions.vector).toBeCloseTo(score, 12);

    const alone = await memory.recall(ns, 'warm white kitchen', { trackAccess: false, weights: { context: 0 } });
    expect(alone.hits.map((hit) => hit.id).sort()).toEqual(['t1', 't2']);
    expect(alone.hits.every((hit) => hit.explain.contextBm25 === null)).toBe(true);

    await memory.forget(ns, 't2'); // a forgotten turn lends nothing
    const after = await memory.recall(ns, 'warm white kitchen', { trackAccess: false });
    expect(after.hits.map((hit) => hit.id)).toEqual(['t1']);
    expect(after.hits[0]!.explain.contextBm25).toBeNull();
    await memory.close();
  });

  it('a turn borrows only from the other speaker: one speaker\'s consecutive messages are separate statements', async () => {
    const { memory } = await openTestMemory();
    // A day of one user's messages (memdaily-zh-dev's shape): each says its own thing.
    await memory.rememberMany([
      { namespace: ns, id: 'shoes', content: '我穿的运动鞋是亚瑟士。', source: 'user', metadata: { session: 'd1', seq: 0 } },
      { namespace: ns, id: 'home', content: '我住的小区叫绿洲家园。', source: 'user', metadata: { session: 'd1', seq: 1 } },
      { namespace: ns, id: 'phone', content: '我用的手机是苹果。', source: 'user', metadata: { session: 'd1', seq: 2 } },
    ]);
    const { hits } = await memory.recall(ns, '运动鞋是什么牌子', { trackAccess: false });
    expect(hits.map((hit) => hit.id)).toEqual(['shoes']);
    expect(hits[0]!.explain.contextBm25).toBeNull();
    await memory.close();
  });

  it('explain still adds up to the score when every signal fires', async () => {
    const { memory, clock } = await openTestMemory();
    const now = clock.now();
    await memory.rememberMany([
      { namespace: ns, content: 'I bought a smoker for the garden', source: 'user', createdAt: now - 10 * DAY, importance: 0.8 },
      { namespace: ns, content: 'A smoker needs wood chips', source: 'assistant', createdAt: now - 30 * DAY },
      { namespace: ns, content: 'The garden grill is rusty', source: 'user', createdAt: now - 2 * DAY },
    ]);
    const { hits } = await memory.recall(ns, 'Which smoker did I buy 10 days ago for the garden?', { trackAccess: false });
    expect(hits[0]!.record.content).toBe('I bought a smoker for the garden');
    const top = hits[0]!.explain;
    expect([top.speaker, top.time, top.focus].every((factor) => factor > 1)).toBe(true);
    for (const { score, explain } of hits) {
      expect(explain.contributions.text + explain.contributions.vector).toBeCloseTo(score, 12);
      const product = explain.relevance * explain.importance * explain.recency * explain.heat * explain.speaker * explain.time * explain.focus;
      expect(product).toBeCloseTo(score, 12);
    }
    await memory.close();
  });
});
