import { describe, expect, it } from 'vitest';
import type { Embedder } from '../src/index.ts';
import { hashingEmbedder } from '../../../test/kit/hashing-embedder.ts';
import { openTestMemory } from './helpers.ts';

const ns = { userId: 'u1' };

describe('the embedding queue', () => {
  it('an embedder failure rejects whenEmbedded with EMBEDDER_UNAVAILABLE and reaches onBackgroundError; the jobs are kept and embedded on a retry', async () => {
    const inner = hashingEmbedder();
    let failures = 2;
    const flaky: Embedder = {
      ...inner,
      embed: async (texts, kind) => {
        if (kind === 'document' && failures > 0) {
          failures--;
          throw new Error('model file busy');
        }
        return inner.embed(texts, kind);
      },
    };
    const errors: unknown[] = [];
    const { memory } = await openTestMemory({ embedder: flaky, onBackgroundError: (err) => errors.push(err) });
    await memory.rememberMany([
      { namespace: ns, content: 'The charging port is loose' },
      { namespace: ns, content: 'The left speaker crackles' },
    ]);
    await expect(memory.whenEmbedded()).rejects.toMatchObject({ code: 'EMBEDDER_UNAVAILABLE' });
    expect(memory.pendingEmbeddings()).toBe(2);
    // Backoff 250 ms, then 500 ms: the third call works.
    for (let i = 0; i < 3 && memory.pendingEmbeddings() > 0; i++) await memory.whenEmbedded().catch(() => undefined);
    expect(memory.pendingEmbeddings()).toBe(0);
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(errors[0]).toMatchObject({ code: 'EMBEDDER_UNAVAILABLE' });
    const result = await memory.recall(ns, 'charging port');
    expect(result.vector).toBe('used');
    expect(result.hits[0]!.record.content).toBe('The charging port is loose');
    expect(result.hits[0]!.explain.cosine).toBeGreaterThan(0.5);
    await memory.close();
  });

  it('with the namespace index loaded, a bulk write embeds each text once and every record gets its vector in the index', async () => {
    const embedded: string[] = [];
    const { memory } = await openTestMemory({ embedder: hashingEmbedder({ onEmbed: (texts) => embedded.push(...texts) }) });
    await memory.remember({ namespace: ns, content: 'first words' });
    await memory.whenEmbedded();
    await memory.recall(ns, 'first'); // loads the index: it follows the writes and asks for their vectors too
    const contents = Array.from({ length: 900 }, (_, i) => `note number ${i} about topic ${i % 37} and place ${i % 11}`);
    for (let i = 0; i < contents.length; i += 300) await memory.rememberMany(contents.slice(i, i + 300).map((content) => ({ namespace: ns, content })));
    await memory.whenEmbedded();
    expect(embedded.filter((text) => text.startsWith('note number')).sort()).toEqual([...contents].sort()); // the rest: 'first words' and the queries
    for (const i of [0, 444, 899]) {
      const hit = (await memory.recall(ns, contents[i]!, { k: 1 })).hits[0]!;
      expect(hit.record.content).toBe(contents[i]);
      expect(hit.explain.cosine).toBeCloseTo(1, 5);
    }
    await memory.close();
  });
});
