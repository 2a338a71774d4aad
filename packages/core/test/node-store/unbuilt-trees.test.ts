import Database from 'better-sqlite3';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diskIndexedDB } from '../../src/index.node.ts';
import { fcSeed } from '../helpers.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-unbuilt-'));
  dirs.push(dir);
  return dir;
}

function done<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/**
 * One store with the kinds of index the engine has: plain, compound, multi-entry and
 * (`unique`) unique; and an autoIncrement store like the audit log.
 */
function open(factory: IDBFactory, unique = true): Promise<IDBDatabase> {
  const request = factory.open(unique ? 'unbuilt' : 'plain', 1);
  request.onupgradeneeded = () => {
    const store = request.result.createObjectStore('s', { keyPath: 'id' });
    store.createIndex('n', 'n');
    store.createIndex('pair', ['kind', 'n']);
    store.createIndex('tags', 'tags', { multiEntry: true });
    if (unique) store.createIndex('u', 'u', { unique: true });
    request.result.createObjectStore('log', { autoIncrement: true }).createIndex('kind', 'kind');
  };
  return done(request);
}

function finished(trans: IDBTransaction): Promise<'complete' | 'aborted'> {
  return new Promise((resolve) => {
    trans.oncomplete = () => resolve('complete');
    trans.onabort = () => resolve('aborted');
  });
}

/** Everything a reader can see of both stores (reading it builds every tree). */
async function everything(db: IDBDatabase, unique = true): Promise<unknown> {
  const trans = db.transaction(['s', 'log']);
  const s = trans.objectStore('s');
  const log = trans.objectStore('log');
  return {
    all: await done(s.getAll()),
    keys: await done(s.getAllKeys()),
    byN: await done(s.index('n').getAllKeys()),
    byPair: await done(s.index('pair').getAllKeys()),
    byTag: await done(s.index('tags').getAllKeys()),
    byU: unique ? await done(s.index('u').getAllKeys()) : null,
    count: await done(s.count()),
    log: await done(log.getAll()),
    logKeys: await done(log.getAllKeys()),
    logByKind: await done(log.index('kind').getAllKeys()),
  };
}

const record = (id: string, extra: Record<string, unknown> = {}) => ({ id, kind: 'x', n: id.charCodeAt(0), tags: ['t1'], ...extra });

describe('trees left unbuilt by writes', () => {
  it('a write first after open reads no other row: neither their keys nor their index fields (unique indexes aside)', async () => {
    const dir = tempDir();
    const disk = diskIndexedDB(dir).indexedDB;
    let db = await open(disk, false);
    let trans = db.transaction(['s', 'log'], 'readwrite');
    for (const id of ['a', 'b', 'c', 'd']) trans.objectStore('s').put(record(id, { u: id }));
    for (const kind of ['x', 'y']) trans.objectStore('log').add({ kind });
    expect(await finished(trans)).toBe('complete');
    db.close();

    // Damage what a build of any tree, or a read of an index, would read: every row's key
    // and index fields, every index entry's primary key (kept, to repair below).
    const file = new Database(join(dir, 'plain.sqlite'));
    const damaged = (blob: Buffer) => Buffer.concat([blob, Buffer.from([0, 1])]);
    const saved = file.prepare('SELECT rowid, key, ix FROM rows').all() as Array<{ rowid: number; key: Buffer; ix: unknown }>;
    const savedEntries = file.prepare('SELECT store, ix, key, pk FROM entries').all() as Array<{ store: number; ix: number; key: Buffer; pk: Buffer }>;
    const damageRow = file.prepare("UPDATE rows SET key = ?, ix = '{not json' WHERE rowid = ?");
    for (const row of saved) damageRow.run(damaged(row.key), row.rowid);
    const damageEntry = file.prepare('UPDATE entries SET pk = ? WHERE store = ? AND ix = ? AND key = ? AND pk = ?');
    for (const entry of savedEntries) damageEntry.run(damaged(entry.pk), entry.store, entry.ix, entry.key, entry.pk);
    file.close();

    db = await open(disk, false);
    trans = db.transaction(['s', 'log'], 'readwrite');
    trans.objectStore('s').put(record('e'));
    trans.objectStore('s').add(record('f', { tags: ['t2', 't3'] }));
    trans.objectStore('log').add({ kind: 'z' });
    expect(await finished(trans)).toBe('complete');
    // The damage is found by the first read that needs what is damaged (and nothing is written).
    const failed = await done(db.transaction('s').objectStore('s').index('n').getAll()).catch((err: unknown) => err);
    expect(failed).toMatchObject({ code: 'STORAGE_FAILED', details: { storage: { reason: 'corrupt' } } });
    db.close();

    const repair = new Database(join(dir, 'plain.sqlite'));
    const repairEntry = repair.prepare('UPDATE entries SET pk = ? WHERE store = ? AND ix = ? AND key = ? AND pk = ?');
    for (const entry of savedEntries) repairEntry.run(entry.pk, entry.store, entry.ix, entry.key, damaged(entry.pk));
    const restore = repair.prepare('UPDATE rows SET key = ?, ix = ? WHERE rowid = ?');
    for (const row of saved) restore.run(row.key, row.ix, row.rowid);
    repair.close();
    db = await open(disk, false);
    expect(await everything(db, false)).toMatchObject({
      keys: ['a', 'b', 'c', 'd', 'e', 'f'],
      byTag: ['a', 'b', 'c', 'd', 'e', 'f', 'f'],
      logKeys: [1, 2, 3],
      logByKind: [1, 2, 3],
    });
    db.close();
  });

  it('a file with index fields but no index entries (the previous release) gets them at open and reads the same', async () => {
    const dir = tempDir();
    const disk = diskIndexedDB(dir).indexedDB;
    const memory = new IDBFactory();
    const fill = (db: IDBDatabase) => {
      const trans = db.transaction(['s', 'log'], 'readwrite');
      for (const id of ['a', 'b', 'c']) trans.objectStore('s').put(record(id, { u: id, tags: ['t1', id] }));
      trans.objectStore('log').add({ kind: 'y' });
      return finished(trans);
    };
    let onDisk = await open(disk);
    const inMemory = await open(memory);
    await fill(onDisk);
    await fill(inMemory);
    onDisk.close();
    const file = new Database(join(dir, 'unbuilt.sqlite'));
    file.exec('DROP TABLE entries; ALTER TABLE stores DROP COLUMN entries');
    file.close();
    onDisk = await open(disk);
    expect(await everything(onDisk)).toEqual(await everything(inMemory));
    onDisk.close();
  });

  it('any sequence of writes, reads and aborts answers as in memory, with reopens between them', async () => {
    const seed = fcSeed('unbuilt trees against fake-indexeddb in memory');
    const id = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
    const value = fc.record(
      { id, kind: fc.constantFrom('x', 'y'), n: fc.integer({ min: 0, max: 4 }), tags: fc.array(fc.constantFrom('t1', 't2', 't3'), { maxLength: 3 }), u: fc.constantFrom('p', 'q', 'r', 's') },
      { requiredKeys: ['id'] },
    );
    const op = fc.oneof(
      { arbitrary: fc.record({ op: fc.constant('put' as const), value }), weight: 4 },
      { arbitrary: fc.record({ op: fc.constant('add' as const), value }), weight: 2 },
      { arbitrary: fc.record({ op: fc.constant('delete' as const), id }), weight: 2 },
      { arbitrary: fc.record({ op: fc.constant('deleteRange' as const), from: id, to: id }), weight: 1 },
      { arbitrary: fc.record({ op: fc.constant('clear' as const) }), weight: 1 },
      { arbitrary: fc.record({ op: fc.constant('get' as const), id }), weight: 2 },
      { arbitrary: fc.record({ op: fc.constant('count' as const), from: fc.option(id) }), weight: 2 },
      { arbitrary: fc.record({ op: fc.constant('index' as const), index: fc.constantFrom('n', 'pair', 'tags', 'u'), key: fc.option(fc.integer({ min: 0, max: 4 })) }), weight: 3 },
      { arbitrary: fc.record({ op: fc.constant('cursor' as const), index: fc.constantFrom('n', 'pair', 'tags', 'u'), direction: fc.constantFrom('next', 'prev', 'nextunique', 'prevunique') }), weight: 2 },
      { arbitrary: fc.record({ op: fc.constant('log' as const), kind: fc.constantFrom('x', 'y') }), weight: 2 },
      { arbitrary: fc.record({ op: fc.constant('logRead' as const), kind: fc.constantFrom('x', 'y') }), weight: 1 },
    );
    const transaction = fc.record({ ops: fc.array(op, { minLength: 1, maxLength: 6 }), abort: fc.boolean(), mode: fc.constantFrom('readwrite', 'readonly'), reopenAfter: fc.boolean() });

    /** Runs one transaction, returning every request's outcome and the transaction's. */
    const run = async (db: IDBDatabase, t: typeof transaction extends fc.Arbitrary<infer T> ? T : never) => {
      const trans = db.transaction(['s', 'log'], t.mode as IDBTransactionMode);
      const s = trans.objectStore('s');
      const log = trans.objectStore('log');
      const outcomes: Array<Promise<unknown>> = [];
      const keyOf = (index: string, key: number | null) => (key === null ? undefined : index === 'pair' ? IDBKeyRange.bound(['x', key], ['y', key]) : index === 'tags' ? `t${(key % 3) + 1}` : index === 'u' ? 'pqrs'[key % 4] : key);
      const request = (make: () => IDBRequest) => {
        let req: IDBRequest;
        try {
          req = make();
        } catch (err) {
          outcomes.push(Promise.resolve(`throws ${(err as Error).name}`));
          return;
        }
        outcomes.push(
          new Promise((resolve) => {
            req.onsuccess = () => resolve(req.result);
            req.onerror = (event) => {
              resolve(`error ${req.error?.name}`);
              event.preventDefault(); // keep the transaction going, as a caller handling the error would
            };
          }),
        );
      };
      /** Walks a cursor over an index to its end, step by step (each step re-reads the index from the cursor's position). */
      const cursor = (index: IDBIndex, direction: IDBCursorDirection) => {
        const seen: unknown[] = [];
        const req = index.openCursor(null, direction);
        outcomes.push(
          new Promise((resolve) => {
            req.onsuccess = () => {
              const at = req.result;
              if (!at) return resolve(seen);
              seen.push([at.key, at.primaryKey]);
              at.continue();
            };
            req.onerror = (event) => {
              resolve(`error ${req.error?.name}`);
              event.preventDefault();
            };
          }),
        );
      };
      for (const o of t.ops) {
        if (o.op === 'put') request(() => s.put(o.value));
        else if (o.op === 'add') request(() => s.add(o.value));
        else if (o.op === 'delete') request(() => s.delete(o.id));
        else if (o.op === 'deleteRange') request(() => s.delete(IDBKeyRange.bound(o.from < o.to ? o.from : o.to, o.from < o.to ? o.to : o.from)));
        else if (o.op === 'clear') request(() => s.clear());
        else if (o.op === 'get') request(() => s.get(o.id));
        else if (o.op === 'count') request(() => (o.from === null ? s.count() : s.count(IDBKeyRange.lowerBound(o.from, true))));
        else if (o.op === 'index') request(() => s.index(o.index).getAll(keyOf(o.index, o.key)));
        else if (o.op === 'cursor') cursor(s.index(o.index), o.direction as IDBCursorDirection);
        else if (o.op === 'log') request(() => log.add({ kind: o.kind }));
        else request(() => log.index('kind').getAllKeys(o.kind));
      }
      if (t.abort) trans.abort();
      const state = await finished(trans);
      return { results: await Promise.all(outcomes), state };
    };

    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(transaction, { minLength: 1, maxLength: 8 }), async (transactions) => {
        const dir = tempDir();
        const disk = diskIndexedDB(dir).indexedDB;
        const memory = new IDBFactory();
        let onDisk = await open(disk);
        const inMemory = await open(memory);
        for (const t of transactions) {
          expect(await run(onDisk, t)).toEqual(await run(inMemory, t));
          if (t.reopenAfter) {
            onDisk.close();
            onDisk = await open(disk); // its trees unbuilt again
          }
        }
        expect(await everything(onDisk)).toEqual(await everything(inMemory));
        onDisk.close();
        onDisk = await open(disk);
        expect(await everything(onDisk)).toEqual(await everything(inMemory));
        onDisk.close();
        inMemory.close();
        rmSync(dir, { recursive: true, force: true });
        round++;
      }),
      { seed, numRuns: 60 },
    );
    expect(round).toBe(60);
  }, 120_000);
});
