import { IDBFactory } from 'fake-indexeddb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blobToKey, decodeKey, encodeKey, keyToBlob } from '../../src/node-store/key-codec.ts';
import { fcSeed } from '../helpers.ts';

const cmp = (a: unknown, b: unknown) => new IDBFactory().cmp(a, b);
const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

/** Valid IndexedDB keys (binary ones not empty: fake-indexeddb refuses those), strings with the escaped code units (0, 1) and lone surrogates included. */
const key: fc.Arbitrary<IDBValidKey> = fc.letrec<{ key: IDBValidKey }>((tie) => ({
  key: fc.oneof(
    { depthSize: 'small' },
    fc.double({ noNaN: true }),
    fc.integer(),
    fc.string({ unit: fc.constantFrom('\u0000', '\u0001', '\u0002', 'a', '\ud800', '\uffff', 'é') }),
    fc.string({ unit: 'binary' }),
    fc.date({ noInvalidDate: true }),
    fc.uint8Array({ minLength: 1, maxLength: 6 }).map((bytes) => bytes.buffer as ArrayBuffer),
    fc.array(tie('key'), { maxLength: 4 }),
  ),
})).key;

describe('the order-preserving key encoding', () => {
  it('string order of encodings (and byte order of their BLOBs) is IndexedDB key order; decoding gives the key back', () => {
    const seed = fcSeed('key codec order');
    fc.assert(
      fc.property(key, key, (a, b) => {
        const [ea, eb] = [encodeKey(a), encodeKey(b)];
        expect(sign(ea < eb ? -1 : ea > eb ? 1 : 0)).toBe(cmp(a, b));
        expect(sign(Buffer.compare(keyToBlob(ea), keyToBlob(eb)))).toBe(cmp(a, b));
        expect(cmp(decodeKey(blobToKey(keyToBlob(ea))), a)).toBe(0);
        // Concatenations compare as tuples: how index entries are ordered by (key, primary key).
        expect(sign(ea + eb < eb + ea ? -1 : ea + eb > eb + ea ? 1 : 0)).toBe(cmp([a, b], [b, a]));
      }),
      { seed, numRuns: 2000 },
    );
  });

  it('-0 is 0, as IndexedDB compares them', () => {
    expect(encodeKey(-0)).toBe(encodeKey(0));
    expect(encodeKey([-0, 'x'])).toBe(encodeKey([0, 'x']));
  });
});
