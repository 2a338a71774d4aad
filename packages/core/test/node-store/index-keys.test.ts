import { IDBFactory } from 'fake-indexeddb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RawConnection, RawIndex } from '../../src/node-store/fake-indexeddb-internals.ts';
import { indexWithoutExceptions } from '../../src/node-store/index-keys.ts';
import { fcSeed } from '../helpers.ts';

const factory = new IDBFactory();

/** Values with the shapes an index meets: missing fields, null, non-keys, keys of every type, nesting, arrays for multi-entry. */
const leaf = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.boolean(),
  fc.double(),
  fc.constantFrom(Number.NaN, -0, Number.POSITIVE_INFINITY),
  fc.string({ maxLength: 3 }),
  fc.date(),
  fc.uint8Array({ maxLength: 3 }),
  fc.constant(Object.create(null) as object),
);
const value = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'length'), tie('value'), { maxKeys: 3 }),
  ),
})).value;

const keyPaths: Array<{ keyPath: string | string[]; multiEntry: boolean }> = [
  { keyPath: 'a', multiEntry: false },
  { keyPath: 'a.b', multiEntry: false },
  { keyPath: 'a.length', multiEntry: false },
  { keyPath: 'a', multiEntry: true },
  { keyPath: ['a', 'b'], multiEntry: false },
  { keyPath: ['a', 'b.a'], multiEntry: false },
];

async function rawIndexes(): Promise<RawIndex[]> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = factory.open(`index-keys-${Math.random()}`, 1);
    request.onupgradeneeded = () => {
      const store = request.result.createObjectStore('s');
      keyPaths.forEach(({ keyPath, multiEntry }, i) => store.createIndex(`i${i}`, keyPath, { multiEntry }));
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const indexes = [...(db as unknown as RawConnection)._rawDatabase.rawObjectStores.get('s')!.rawIndexes.values()];
  db.close();
  return indexes;
}

describe('index keys without exceptions', () => {
  it('give exactly the key fake-indexeddb computes (or none), for every key path and value shape', async () => {
    const indexes = await rawIndexes();
    const engines = indexes.map((index) => index.getIndexKey.bind(index));
    for (const index of indexes) indexWithoutExceptions(index);
    const seed = fcSeed('index keys without exceptions');
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('a', 'b'), value, { maxKeys: 2 }), (record) => {
        indexes.forEach((index, i) => {
          const expected = engines[i]!(record);
          const actual = index.getIndexKey(record);
          if (expected === undefined) expect(actual).toBeUndefined();
          else {
            expect(actual).not.toBeUndefined();
            expect(factory.cmp(actual, expected)).toBe(0);
            expect(Object.prototype.toString.call(actual)).toBe(Object.prototype.toString.call(expected));
          }
        });
      }),
      { seed, numRuns: 3000 },
    );
  });
});
