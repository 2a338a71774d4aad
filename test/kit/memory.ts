import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterAll } from 'vitest';
import { openMemory, type Clock, type Memory, type OpenMemoryOptions } from '../../packages/core/src/index.ts';
import { openMemory as openNodeMemory } from '../../packages/core/src/open-memory.node.ts';
import { openSqliteStore } from '../../packages/core/src/store/sqlite/sqlite-engine.ts';
import { fileNameOf } from '../../packages/core/src/store/sqlite/sqlite-file.ts';
import { vectorRowOf, type StoredVectorRow } from '../../packages/core/src/store/dexie/database.ts';
import { openDexieStore } from '../../packages/core/src/store/dexie/dexie-store.ts';
import type { StoragePort } from '../../packages/core/src/store/port.ts';
import { readSqliteStore, readSqliteTable } from '../../packages/core/test/sqlite-store-rows.ts';

/**
 * Memories for tests, on either storage engine behind core's storage port: `dexie`
 * (IndexedDB, here fake-indexeddb in memory, as browsers have it) or `sqlite` (Node's store
 * on disk, each test's files in a fresh directory removed after the test file). A test
 * names the engine, or takes the run's: `sqlite` when `ZEROMEM_TEST_STORE=disk` (the
 * `core-on-disk` vitest project runs the core suite so), else `dexie`.
 */
export type Engine = 'dexie' | 'sqlite';

/**
 * Where a test's databases live, by engine: an IndexedDB factory, or a directory of SQLite
 * files. A database is a place and a name; pass the place again to open the same database
 * a second time (a second tab, a restart).
 */
export type StorePlace = { engine: 'dexie'; indexedDB: IDBFactory } | { engine: 'sqlite'; directory: string };

/** A clock that only moves when told to. */
export interface FakeClock extends Clock {
  set(time: number): void;
  advance(ms: number): void;
}

/** A fake clock starting at 2026-01-01T00:00:00Z unless told otherwise. */
export function fakeClock(start = Date.UTC(2026, 0, 1)): FakeClock {
  let time = start;
  return {
    now: () => time,
    set: (t) => void (time = t),
    advance: (ms) => void (time += ms),
  };
}

/** The engine of this run: `sqlite` with `ZEROMEM_TEST_STORE=disk`, else `dexie`. */
export function runEngine(): Engine {
  return process.env.ZEROMEM_TEST_STORE === 'disk' ? 'sqlite' : 'dexie';
}

let diskRoot: string | undefined;
// Each test file evaluates this module anew: its directories go after its tests.
afterAll(() => {
  if (diskRoot) rmSync(diskRoot, { recursive: true, force: true });
  diskRoot = undefined;
});

/** A fresh, private IndexedDB (fake-indexeddb) and its key range, for the Dexie engine or core's `openMemory`. */
export function freshIndexedDB(): { indexedDB: IDBFactory; IDBKeyRange: typeof IDBKeyRange } {
  return { indexedDB: new IDBFactory(), IDBKeyRange };
}

/** A fresh place of `engine` (default: the run's): a new IndexedDB, or a new directory under this test file's. */
export function freshPlace(engine: Engine = runEngine()): StorePlace {
  if (engine === 'dexie') return { engine, indexedDB: new IDBFactory() };
  diskRoot ??= mkdtempSync(join(tmpdir(), 'zeromem-suite-'));
  return { engine, directory: mkdtempSync(join(diskRoot, 'db-')) };
}

/** The SQLite file of database `name` at a `sqlite` place; undefined at a `dexie` one. */
export function sqliteFileOf(place: StorePlace, name: string): string | undefined {
  return place.engine === 'sqlite' ? join(place.directory, fileNameOf(name)) : undefined;
}

/** The storage port of database `name` at `place`, opened directly (no memory): for tests that change rows behind zeromem's back. */
export function openStoreAt(place: StorePlace, name: string): Promise<StoragePort> {
  if (place.engine === 'sqlite') return openSqliteStore(place.directory, name, { durability: 'relaxed' });
  return openDexieStore(name, { indexedDB: place.indexedDB, IDBKeyRange });
}

/** Opens a memory on the database at `place` (`options.name`, default `test`) through core's own open of that engine. */
export function openMemoryAt(place: StorePlace, options: OpenMemoryOptions): Promise<Memory> {
  const { indexedDB: _factory, IDBKeyRange: _range, ...rest } = options;
  if (place.engine === 'sqlite') return openNodeMemory({ ...rest, directory: place.directory });
  return openMemory({ IDBKeyRange, ...rest, indexedDB: place.indexedDB });
}

/** Options of {@link openTestMemory}: the memory's, plus the engine or the place (default: a fresh place of the run's engine). */
export interface TestMemoryOptions extends Omit<OpenMemoryOptions, 'indexedDB' | 'IDBKeyRange'> {
  engine?: Engine;
  /** An existing place: a second memory on the same database. */
  place?: StorePlace;
}

/** What {@link openTestMemory} gives back: the memory, its clock, and where its data lives. */
export interface TestMemory {
  memory: Memory;
  clock: FakeClock;
  /** Where the database is (pass it to open the same database again). */
  place: StorePlace;
  /** The database name. */
  name: string;
  /** Every row of every object store (table), by store name, as the port hands them out. */
  stores: () => Promise<Record<string, unknown[]>>;
  /** Every string stored anywhere, as JSON text. */
  dump: () => Promise<string>;
}

/** Opens a memory with a fake clock (unless given one) on a fresh database of the engine, or the given place. */
export async function openTestMemory(options: TestMemoryOptions = {}): Promise<TestMemory> {
  const { engine, place: given, ...rest } = options;
  const place = given ?? freshPlace(engine);
  const clock = (rest.clock as FakeClock | undefined) ?? fakeClock();
  const name = rest.name ?? 'test';
  // On disk the suite checks the semantics; durability (the sync of each commit) has tests of its own (core's test/store/sqlite).
  const durability = rest.durability ?? (place.engine === 'sqlite' ? 'relaxed' : undefined);
  const memory = await openMemoryAt(place, { ...rest, name, clock, ...(durability ? { durability } : {}) });
  return { memory, clock, place, name, stores: () => readStores(place, name), dump: () => dumpDatabase(place, name) };
}

/** Every row of every object store of a database (on disk: of every table, as the port's rows), by store name. */
export async function readStores(place: StorePlace, name: string): Promise<Record<string, unknown[]>> {
  if (place.engine === 'sqlite') return readSqliteStore(sqliteFileOf(place, name)!);
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = place.indexedDB.open(name);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const stores: Record<string, unknown[]> = {};
  try {
    for (const storeName of Array.from(db.objectStoreNames)) {
      stores[storeName] = await new Promise<unknown[]>((resolve, reject) => {
        const request = db.transaction(storeName).objectStore(storeName).getAll();
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
    }
  } finally {
    db.close();
  }
  // Vectors as the port hands them out (the table holds them trimmed, store/dexie/database.ts v7).
  if (stores['vectors']) stores['vectors'] = (stores['vectors'] as StoredVectorRow[]).map(vectorRowOf);
  return stores;
}

/** Every string stored anywhere in the database, for "is it gone?" checks. */
export async function dumpDatabase(place: StorePlace, name: string): Promise<string> {
  const stores = await readStores(place, name);
  const file = sqliteFileOf(place, name);
  if (file) stores['record_tags'] = readSqliteTable(file, 'record_tags');
  return Object.values(stores)
    .map((rows) => JSON.stringify(rows))
    .join('\n');
}

/** Total number of rows over every object store. */
export async function rowCount(place: StorePlace, name: string): Promise<number> {
  const stores = await readStores(place, name);
  return Object.values(stores).reduce((sum, rows) => sum + rows.length, 0);
}
