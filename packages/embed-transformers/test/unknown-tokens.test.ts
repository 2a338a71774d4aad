/**
 * The unknown-token guard on the ids a model runs on: special tokens ([CLS], [SEP], [PAD])
 * never count, punctuation is not a word, padding is skipped, and [UNK] counts as an
 * unknown word.
 */
import { describe, expect, it } from 'vitest';
import { UnknownTokenGuard } from '@zeromem/embed-transformers';

// A BERT-like vocabulary: special tokens first, then words, a subword and punctuation.
const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'hello', 'world', '!', '##s', '42', '▁'];
const guard = new UnknownTokenGuard({ all_special_ids: [0, 1, 2, 3], model: { vocab, unk_token_id: 1 } });

/** One row of ids (BigInt, as transformers.js tensors hold them), unpadded. */
function fraction(ids: number[], padTo = ids.length): number {
  const row = [...ids, ...new Array(padTo - ids.length).fill(0)];
  const mask = row.map((_, i) => BigInt(i < ids.length ? 1 : 0));
  return guard.unknownFraction(row.map(BigInt), mask, 0, row.length);
}

describe('UnknownTokenGuard', () => {
  it('counts [UNK] among word-like tokens, never [CLS]/[SEP] or punctuation', () => {
    expect(fraction([2, 4, 5, 3])).toBe(0); // [CLS] hello world [SEP]
    expect(fraction([2, 4, 1, 3])).toBe(0.5); // [CLS] hello [UNK] [SEP]
    expect(fraction([2, 1, 1, 1, 4, 3])).toBe(0.75);
    expect(fraction([2, 4, 7, 8, 6, 3])).toBe(0); // subwords and digits are words, "!" is not
  });

  it('does not count as unknown words the punctuation marks a vocabulary lacks (they become [UNK] too)', () => {
    // "hello, world: 42%" with ',' ':' '%' missing from the vocabulary: [CLS] hello [UNK] world [UNK] 42 [UNK] [SEP]
    const ids = [2, 4, 1, 5, 1, 8, 1, 3];
    const mask = ids.map(() => 1);
    expect(guard.unknownFraction(ids, mask, 0, ids.length, 'hello, world: 42%')).toBe(0);
    expect(guard.unknownFraction(ids, mask, 0, ids.length, 'hello zork world qux 42 blub')).toBe(0.5); // real unknown words still count
    expect(guard.unknownFraction([2, 4, 6, 1, 3], [1, 1, 1, 1, 1], 0, 5, 'hello!?')).toBe(0); // '!' is in the vocabulary, '?' is not
    expect(guard.unknownFraction([2, 4, 1, 1, 3], [1, 1, 1, 1, 1], 0, 5, 'hello!? zork')).toBe(0.5); // only the missing mark is discounted
  });

  it('is 1 for a row without any word-like token (empty, punctuation only, all unknown)', () => {
    expect(fraction([2, 3])).toBe(1);
    expect(fraction([2, 6, 6, 3])).toBe(1);
    expect(fraction([2, 9, 3])).toBe(1); // a bare word-boundary marker is not a word
    expect(fraction([1, 1])).toBe(1);
  });

  it('skips padding and reads the right row of a batch', () => {
    expect(fraction([2, 4, 3], 8)).toBe(0);
    const length = 4;
    const ids = [2, 4, 5, 3, /* row 2 */ 2, 1, 0, 0].map(BigInt);
    const mask = [1, 1, 1, 1, 1, 1, 0, 0].map(BigInt);
    expect(guard.unknownFraction(ids, mask, 0, length)).toBe(0);
    expect(guard.unknownFraction(ids, mask, length, length)).toBe(1);
  });

  it('works without an unknown token (byte-level vocabularies)', () => {
    const bytes = new UnknownTokenGuard({ all_special_ids: [], model: { vocab: ['a', 'b', '!'] } });
    expect(bytes.unknownFraction([0, 1, 2], [1, 1, 1], 0, 3)).toBe(0);
    expect(bytes.unknownFraction([2], [1], 0, 1)).toBe(1);
  });
});
