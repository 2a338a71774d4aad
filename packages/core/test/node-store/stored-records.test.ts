import Database from 'better-sqlite3';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { diskIndexedDB } from '../../src/index.node.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function done<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function open(factory: IDBFactory, version = 1): Promise<IDBDatabase> {
  const request = factory.open('stored', version);
  request.onupgradeneeded = (event) => {
    if (event.oldVersion < 1) {
      const store = request.result.createObjectStore('s', { keyPath: 'id' });
      store.createIndex('tags', 'tags', { multiEntry: true });
      store.createIndex('n', 'n');
      store.createIndex('pair', ['kind', 'n']);
    }
    // Version 2 indexes the stored records by a field of theirs: the upgrade reads every value.
    if (version >= 2 && event.oldVersion < 2) request.transaction!.objectStore('s').createIndex('kind', 'kind');
  };
  return done(request);
}

async function write(db: IDBDatabase, work: (store: IDBObjectStore) => void): Promise<void> {
  const trans = db.transaction('s', 'readwrite');
  work(trans.objectStore('s'));
  await new Promise<void>((resolve, reject) => {
    trans.oncomplete = () => resolve();
    trans.onerror = () => reject(trans.error);
  });
}

/** Everything a reader can see: values by key, through each index, by cursor, and key lists. */
async function everything(db: IDBDatabase): Promise<unknown> {
  const store = db.transaction('s').objectStore('s');
  const cursorValues: unknown[] = [];
  await new Promise<void>((resolve, reject) => {
    const request = store.openCursor(null, 'prev');
    request.onsuccess = () => {
      const cursor = request.result;
      if (!cursor) return resolve();
      cursorValues.push([cursor.primaryKey, cursor.value]);
      cursor.continue();
    };
    request.onerror = () => reject(request.error);
  });
  return {
    all: await done(store.getAll()),
    some: await done(store.getAll(IDBKeyRange.bound('b', 'd'), 2)),
    one: await done(store.get('c')),
    missing: await done(store.get('zz')),
    byTag: await done(store.index('tags').getAll('t1')),
    byTagKeys: await done(store.index('tags').getAllKeys()),
    byN: await done(store.index('n').get(3)),
    byPair: await done(store.index('pair').getAll(IDBKeyRange.bound(['x', 0], ['x', 10]))),
    byKind: db.version >= 2 ? await done(store.index('kind').getAll('x')) : null,
    count: await done(store.index('n').count()),
    cursorValues,
  };
}

const rows = [
  { id: 'a', kind: 'x', n: 1, tags: ['t1', 't2'], nested: { deep: [1, 2, { z: null }] } },
  { id: 'b', kind: 'y', n: 2, tags: [], vector: new Float32Array([0.5, -1, 2]) },
  { id: 'c', kind: 'x', n: 3, tags: ['t1'], when: new Date(5), missing: undefined },
  { id: 'd', kind: 'x', tags: ['t2', 't2'] },
  { id: 'e', kind: 'y', n: 5, tags: ['t1', 't3'], big: -0 },
];


/**
 * The same rows written to a store on disk (then closed: the next open reads the file) and
 * to one in memory (left open), for tests that compare what each answers.
 */
async function sameRowsOnDiskAndInMemory(): Promise<{ dir: string; disk: IDBFactory; memory: IDBFactory; inMemory: IDBDatabase }> {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-stored-'));
  dirs.push(dir);
  const disk = diskIndexedDB(dir).indexedDB;
  const memory = new IDBFactory();
  const fill = (store: IDBObjectStore) => rows.forEach((row) => store.put(row));
  const [onDisk, inMemory] = [await open(disk), await open(memory)];
  await write(onDisk, fill);
  await write(inMemory, fill);
  onDisk.close();
  return { dir, disk, memory, inMemory };
}

/** Opens the store on disk again (it reads the file) and expects it to answer as `inMemory` does. */
async function expectSameAfterReopen(disk: IDBFactory, inMemory: IDBDatabase, version = 1): Promise<void> {
  const onDisk = await open(disk, version);
  expect(await everything(onDisk)).toEqual(await everything(inMemory));
  onDisk.close();
}

describe('records loaded from the file (values decoded on first read)', () => {
  it('read, change and delete exactly as in fake-indexeddb in memory, and reopen the same', async () => {
    const { disk, inMemory } = await sameRowsOnDiskAndInMemory();
    let onDisk = await open(disk); // loaded from the file: every record still encoded

    expect(await everything(onDisk)).toEqual(await everything(inMemory));
    // A read is a copy: changing it changes nothing stored (while still encoded, and once decoded).
    const first = (await done(onDisk.transaction('s').objectStore('s').get('a'))) as { tags: string[]; nested: { deep: unknown[] } };
    first.tags.push('changed');
    first.nested.deep.length = 0;
    expect(await everything(onDisk)).toEqual(await everything(inMemory));

    // Changes to loaded records (overwrite moves index entries; delete removes them), and an abort.
    const change = (store: IDBObjectStore) => {
      store.put({ id: 'c', kind: 'y', n: 30, tags: ['t3'] });
      store.delete('a');
      store.put({ id: 'f', kind: 'x', n: 3, tags: ['t1'] });
    };
    await write(onDisk, change);
    await write(inMemory, change);
    const aborted = (db: IDBDatabase) => {
      const trans = db.transaction('s', 'readwrite');
      trans.objectStore('s').delete('e');
      trans.objectStore('s').put({ id: 'b', kind: 'z', n: 9, tags: ['t9'] });
      trans.abort();
    };
    aborted(onDisk);
    aborted(inMemory);
    expect(await everything(onDisk)).toEqual(await everything(inMemory));

    onDisk.close();
    await expectSameAfterReopen(disk, inMemory);
    inMemory.close();
  });
  it('open reads no values: a damaged value is found by the read that needs it (STORAGE_FAILED, corrupt), the rest reads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zeromem-stored-'));
    dirs.push(dir);
    const disk = diskIndexedDB(dir).indexedDB;
    let db = await open(disk);
    await write(db, (store) => rows.forEach((row) => store.put(row)));
    db.close();
    const file = new Database(join(dir, 'stored.sqlite'));
    file.prepare("UPDATE rows SET json = '{not json', bytes = NULL WHERE json LIKE '%\"id\":\"d\"%'").run();
    file.close();

    db = await open(disk);
    const store = db.transaction('s').objectStore('s');
    expect(await done(store.get('a'))).toEqual(rows[0]);
    expect(await done(store.index('n').getAllKeys())).toEqual(['a', 'b', 'c', 'e']);
    const failed = await done(db.transaction('s').objectStore('s').get('d')).catch((err: unknown) => err);
    expect(failed).toMatchObject({ code: 'STORAGE_FAILED', details: { storage: { reason: 'corrupt' } } });
    db.close();
  });

  it('a file written without stored index fields or entries (earlier releases) opens and reads the same', async () => {
    const { dir, disk, inMemory } = await sameRowsOnDiskAndInMemory();
    let onDisk: IDBDatabase;
    // The earlier format: each row's whole value in one column, no index fields.
    const file = new Database(join(dir, 'stored.sqlite'));
    const fields = ['tags', 'n', 'kind']; // what the indexes of 's' read, in the order they are declared
    const whole = (ix: string | Buffer | null, json: string | null, bytes: Buffer | null) => {
      const value = json !== null ? JSON.parse(json) : deserialize(bytes!);
      const values = ix === null ? [] : ((typeof ix === 'string' ? JSON.parse(ix) : deserialize(ix)) as unknown[]);
      fields.forEach((field, i) => {
        if (Object.hasOwn(value, field)) value[field] = values[i];
      });
      return value;
    };
    const rewrite = file.prepare('UPDATE rows SET json = NULL, bytes = ? WHERE rowid = ?');
    for (const row of file.prepare('SELECT rowid, ix, json, bytes FROM rows').all() as Array<{ rowid: number; ix: string | Buffer | null; json: string | null; bytes: Buffer | null }>) {
      rewrite.run(serialize(whole(row.ix, row.json, row.bytes)), row.rowid);
    }
    file.exec('ALTER TABLE rows DROP COLUMN ix; DROP TABLE entries; ALTER TABLE stores DROP COLUMN entries');
    file.close();

    onDisk = await open(disk);
    expect(await everything(onDisk)).toEqual(await everything(inMemory));
    const change = (store: IDBObjectStore) => store.put({ id: 'g', kind: 'x', n: 7, tags: ['t7'] });
    await write(onDisk, change);
    await write(inMemory, change);
    onDisk.close();
    await expectSameAfterReopen(disk, inMemory);
    inMemory.close();
  });

  it('an upgrade of a loaded store keeps every value and indexes them', async () => {
    const { disk, memory, inMemory: atVersion1 } = await sameRowsOnDiskAndInMemory();
    atVersion1.close();

    let onDisk = await open(disk, 2); // loaded from the file, then upgraded
    const inMemory = await open(memory, 2);
    expect(await everything(onDisk)).toEqual(await everything(inMemory));
    onDisk.close();
    await expectSameAfterReopen(disk, inMemory, 2);
    inMemory.close();
  });
  it('index trees built on first use: a write or an aborted write first after open leaves every index as in memory', async () => {
    const { disk, inMemory } = await sameRowsOnDiskAndInMemory();
    let onDisk: IDBDatabase;
    const overwrite = (store: IDBObjectStore) => {
      store.put({ id: 'a', kind: 'y', n: 11, tags: ['t4'] });
      store.delete('c');
    };
    const aborted = (db: IDBDatabase) => {
      const trans = db.transaction('s', 'readwrite');
      overwrite(trans.objectStore('s'));
      trans.abort();
      return new Promise((resolve) => (trans.onabort = resolve));
    };
    onDisk = await open(disk);
    await aborted(onDisk); // the first use after open
    await aborted(inMemory);
    expect(await everything(onDisk)).toEqual(await everything(inMemory));
    onDisk.close();
    onDisk = await open(disk);
    await write(onDisk, overwrite); // the first use after open
    await write(inMemory, overwrite);
    expect(await everything(onDisk)).toEqual(await everything(inMemory));
    onDisk.close();
    await expectSameAfterReopen(disk, inMemory);
    inMemory.close();
  });
  it('before its trees are built, a store answers lookups by key and counts from the file, the same as in memory', async () => {
    const { disk, inMemory } = await sameRowsOnDiskAndInMemory();
    let onDisk: IDBDatabase;
    const reads = async (db: IDBDatabase) => {
      const store = db.transaction('s').objectStore('s');
      return {
        c: await done(store.get('c')),
        zz: await done(store.get('zz')),
        key: await done(store.getKey('e')),
        all: await done(store.count()),
        one: await done(store.count('b')),
        none: await done(store.count('bb')),
        closed: await done(store.count(IDBKeyRange.bound('b', 'd'))),
        open: await done(store.count(IDBKeyRange.bound('b', 'd', true, true))),
        from: await done(store.count(IDBKeyRange.lowerBound('c', true))),
        to: await done(store.count(IDBKeyRange.upperBound('c'))),
      };
    };
    onDisk = await open(disk);
    expect(await reads(onDisk)).toEqual(await reads(inMemory));
    expect(await everything(onDisk)).toEqual(await everything(inMemory)); // and then built
    onDisk.close();
    inMemory.close();
  });
});
