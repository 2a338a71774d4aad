import { Dexie } from 'dexie';
import { IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { MemoryDatabase } from '../../src/store/dexie/database.ts';
import { openDexieStore } from '../../src/store/dexie/dexie-store.ts';
import { freshIndexedDB } from '../helpers.ts';
import { describeStoragePort } from './storage-port-contract.ts';

// The Dexie engine on fake-indexeddb in memory (the SQLite engine's run is sqlite-store.test.ts).
describeStoragePort('Dexie', () => openDexieStore('port-contract', { ...freshIndexedDB(), IDBKeyRange, durability: 'relaxed' }));

// Issue 32: a vector costs its own model's dimensions in IndexedDB too (database.ts v7).
describe('Dexie vectors', () => {
  const whole = (first: number, values: number[], dimension = 640) => {
    const vector = new Float32Array(dimension);
    vector.set(values, first);
    return vector;
  };

  it('are stored without the zeros around their own model\'s columns, and read back whole', async () => {
    const factory = freshIndexedDB();
    const store = await openDexieStore('trimmed', { ...factory, IDBKeyRange });
    const english = whole(0, [0.6, 0, 0.8]);
    const chinese = whole(128, [0.28, 0.96]);
    await store.write((tx) => tx.putVectors([{ model: 'm', hash: 'en', vector: english }, { model: 'm', hash: 'zh', vector: chinese }, { model: 'm', hash: 'none', vector: null }]));
    expect(await store.read((tx) => tx.getVectors('m', ['en', 'zh', 'none', 'missing']))).toEqual([
      { model: 'm', hash: 'en', vector: english },
      { model: 'm', hash: 'zh', vector: chinese },
      { model: 'm', hash: 'none', vector: null },
      undefined,
    ]);
    store.close();
    const db = new MemoryDatabase('trimmed', { ...factory, IDBKeyRange });
    const rows = await db.vectors.toArray();
    db.close();
    expect(Object.fromEntries(rows.map((row) => [row.hash, row.vector?.length ?? null]))).toEqual({ en: 3, zh: 2, none: null });
  });

  it('of a database before v7 (every value, zeros too) are trimmed by the upgrade and read back as they were', async () => {
    const factory = freshIndexedDB();
    // The schema of v6, as the release before this one opened it.
    const old = new Dexie('upgrade', { ...factory, IDBKeyRange });
    old.version(6).stores({
      records: '[ns+id], [ns+contentHash], contentHash, userId, expiresAt, [ns+expiresAt], *byCreated, *byUpdated, [ns+layer+createdAt+id], [ns+layer+updatedAt+id], [ns+key]',
      audit: '++seq, [ns+seq]',
      vectors: '[model+hash], hash',
      indexSnapshots: 'ns',
      docUpdates: '++seq, room',
      docCursors: 'room',
    });
    const english = whole(0, [0.6, 0.8]);
    await old.table('vectors').bulkPut([{ model: 'm', hash: 'en', vector: english }, { model: 'm', hash: 'none', vector: null }]);
    old.close();
    const store = await openDexieStore('upgrade', { ...factory, IDBKeyRange });
    expect(await store.read((tx) => tx.getVectors('m', ['en', 'none']))).toEqual([
      { model: 'm', hash: 'en', vector: english },
      { model: 'm', hash: 'none', vector: null },
    ]);
    store.close();
    const db = new MemoryDatabase('upgrade', { ...factory, IDBKeyRange });
    expect((await db.vectors.get(['m', 'en']))?.vector).toHaveLength(2);
    db.close();
  });
});
