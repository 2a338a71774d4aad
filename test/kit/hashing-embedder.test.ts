import { describe, expect, it } from 'vitest';
import { tokenize } from '../../packages/core/src/search/tokenize.ts';
import { hashingEmbedder, textVector, tokenBucket } from './hashing-embedder.ts';

const sum = (v: ArrayLike<number>, from = 0, to = v.length) => Array.from(v).slice(from, to).reduce((a, b) => a + b, 0);

describe('the hashing test embedder', () => {
  it('hashes with 32-bit FNV-1a (its published test vectors), so stored test vectors never move', () => {
    expect(tokenBucket('', 2 ** 32)).toBe(0x811c9dc5);
    expect(tokenBucket('a', 2 ** 32)).toBe(0xe40c292c);
    expect(tokenBucket('foobar', 2 ** 32)).toBe(0xbf9cf968);
    expect(tokenBucket('foobar', 64)).toBe(0xbf9cf968 % 64);
  });

  it('counts each of core\'s tokens in its bucket: 64 dimensions and a model id by default, zeros for a text without tokens', async () => {
    const embedder = hashingEmbedder();
    expect([embedder.modelId, embedder.dimension]).toEqual(['test-hashing-64', 64]);
    const [sentence, piano, none] = await embedder.embed(['Plays the piano on Sundays', 'piano', '!!!'], 'document');
    expect(sentence).toHaveLength(64);
    expect(sum(sentence!)).toBe(tokenize('Plays the piano on Sundays').length);
    expect(piano![tokenBucket('piano', 64)]).toBe(1);
    expect(sentence![tokenBucket('piano', 64)]).toBeGreaterThanOrEqual(1);
    expect(sum(none!)).toBe(0);
    expect(hashingEmbedder({ dimension: 16, modelId: 'm' })).toMatchObject({ modelId: 'm', dimension: 16 });
  });

  it('puts Han text in the last block and other text in the first, the other block zero', async () => {
    const embedder = hashingEmbedder({ dimension: 640, hanDimensions: 512 });
    const [en, zh] = await embedder.embed(['Plays the piano on Sundays', '每周日弹钢琴'], 'document');
    expect([sum(en!, 0, 128), sum(en!, 128)]).toEqual([tokenize('Plays the piano on Sundays').length, 0]);
    expect([sum(zh!, 0, 128), sum(zh!, 128)]).toEqual([0, tokenize('每周日弹钢琴').length]);
    expect(zh![128 + tokenBucket('钢琴', 512)]).toBeGreaterThanOrEqual(1);
  });

  it('fails every batch with the message given, after telling onEmbed', async () => {
    const seen: string[][] = [];
    const embedder = hashingEmbedder({ failWith: 'the model fell over', onEmbed: (texts) => seen.push([...texts]) });
    await expect(embedder.embed(['a', 'b'], 'document')).rejects.toThrow('the model fell over');
    expect(seen).toEqual([['a', 'b']]);
  });

  it('per text: a unit vector seeded by the text, the same each time, textVector\'s numbers as float32', async () => {
    const embedder = hashingEmbedder({ dimension: 384, perText: true });
    const [a, again, b] = await embedder.embed(['same text', 'same text', 'other text'], 'document');
    expect(Math.hypot(...a!)).toBeCloseTo(1, 5);
    expect(again).toEqual(a);
    expect(b).not.toEqual(a);
    expect(a).toEqual(Float32Array.from(textVector('same text', 384)));
  });
});
