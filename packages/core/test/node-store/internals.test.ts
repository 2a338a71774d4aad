import { IDBFactory } from 'fake-indexeddb';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import corePackage from '../../package.json' with { type: 'json' };

const require = createRequire(import.meta.url);

describe('the fake-indexeddb internals the disk store relies on', () => {
  it('the installed fake-indexeddb is the exact version core pins, and it has every field used', async () => {
    const entry = require.resolve('fake-indexeddb'); // .../fake-indexeddb/build/cjs/index.js
    const installed = (JSON.parse(readFileSync(join(dirname(entry), '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
    expect(corePackage.dependencies['fake-indexeddb']).toBe(installed); // exact, no range: an upgrade is a deliberate change
    const factory = new IDBFactory();
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = factory.open('internals', 1);
      request.onupgradeneeded = () => request.result.createObjectStore('s', { autoIncrement: true }).createIndex('i', 'x', { multiEntry: true });
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    const raw = (db as unknown as { _rawDatabase: { rawObjectStores: Map<string, Record<string, unknown>>; transactions: unknown[] } })._rawDatabase;
    expect(raw.transactions).toBeInstanceOf(Array);
    const store = raw.rawObjectStores.get('s')! as { records: Record<string, unknown>; keyGenerator: { num: number }; rawIndexes: Map<string, Record<string, unknown>> };
    for (const method of ['get', 'put', 'delete', 'clear', 'values']) expect(typeof store.records[method]).toBe('function');
    const tree = store.records.records as Record<string, unknown>;
    expect(typeof tree._rebuild).toBe('function');
    expect(tree).toHaveProperty('_numNodes');
    expect(tree).toHaveProperty('_numTombstones');
    expect(store.keyGenerator.num).toBe(0);
    expect(store.rawIndexes.get('i')).toMatchObject({ name: 'i', keyPath: 'x', multiEntry: true, unique: false });
    // Replaced per instance (index keys without exceptions, reads of records still encoded): they must be the engine's paths.
    expect(typeof store.rawIndexes.get('i')!.getIndexKey).toBe('function');
    for (const method of ['getValue', 'getAllValues', 'count']) expect(typeof (store as unknown as Record<string, unknown>)[method]).toBe('function');
    const engineSource = readFileSync(join(dirname(entry), 'lib', 'Index.js'), 'utf8');
    expect(engineSource).toMatch(/storeRecord\(newRecord\) \{\s*const indexKey = this\.getIndexKey\(newRecord\.value\)/);
    expect(engineSource).toMatch(/deleteRecord\(record\) \{\s*const indexKey = this\.getIndexKey\(record\.value\)/);
    expect(engineSource).toMatch(/this\.rawObjectStore\.getValue\(record\.value\)/);
    const trans = db.transaction('s', 'readwrite') as unknown as Record<string, unknown>;
    for (const field of ['_start', '_abort', '_markFinished']) expect(typeof trans[field]).toBe('function');
    expect(trans._scope).toBeInstanceOf(Set);
    expect(trans._requests).toBeInstanceOf(Array);
    expect(trans._state).toBe('active');
    expect(((db.transaction('s').objectStore('s') as unknown as { _rawObjectStore: unknown })._rawObjectStore)).toBe(store);
    db.close();
  });
});
