import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { openMemory as openNodeMemory } from '../src/node-store/open-memory.ts';
import { readSqliteStore, readSqliteTable } from './sqlite-store-rows.ts';
import { fileNameOf } from '../src/node-store/store-file.ts';
import { openSqliteStore } from '../src/node-store/sqlite-engine.ts';
import { openDexieStore } from '../src/store/dexie-store.ts';
import { vectorRowOf, type StoredVectorRow } from '../src/store/database.ts';
import type { StoragePort } from '../src/store/port.ts';
import { afterAll, expect } from 'vitest';
import { ERROR_CODES, ZeromemError, openMemory, type Clock, type ErrorCode, type Memory, type OpenMemoryOptions } from '../src/index.ts';

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

/**
 * The store the core suite runs on: fake-indexeddb in memory (IndexedDB as browsers have
 * it), or with `ZEROMEM_TEST_STORE=disk` the Node store on disk, each database in a fresh
 * directory of its own (the second run of the suite, vite.config.ts).
 */
const onDisk = process.env.ZEROMEM_TEST_STORE === 'disk';
let diskRoot: string | undefined;
// Each test file evaluates this module anew: its directories go after its tests.
if (onDisk) afterAll(() => diskRoot && rmSync(diskRoot, { recursive: true, force: true }));

/** A new directory for one database on disk, under one directory per test file. */
function freshDirectory(): string {
  diskRoot ??= mkdtempSync(join(tmpdir(), 'zeromem-suite-'));
  return mkdtempSync(join(diskRoot, 'db-'));
}

/** A fresh, private IndexedDB (fake-indexeddb) so tests never see each other's data: the Dexie engine's, in both runs of the suite. */
export function freshIndexedDB(): { indexedDB: IDBFactory; IDBKeyRange: typeof IDBKeyRange } {
  return { indexedDB: new IDBFactory(), IDBKeyRange };
}

/** What {@link openTestMemory} gives back: the memory, its clock, and where its data lives. */
export interface TestMemory {
  memory: Memory;
  clock: FakeClock;
  /** The IndexedDB factory holding the database (pass it to a second memory to share it). */
  factory: IDBFactory;
  /** The database name. */
  name: string;
  /** Every row of every object store, by store name. */
  stores: () => Promise<Record<string, unknown[]>>;
  /** Every string stored anywhere, as JSON text. */
  dump: () => Promise<string>;
}

/**
 * Where the core suite's second run keeps a test's databases: a directory of SQLite stores
 * (Node's engine, sqlite-engine.ts). It stands in for the IndexedDB factory a test passes
 * around to open the same database again ({@link TestMemory.factory}).
 */
class SqliteDirectory {
  constructor(readonly directory: string) {}
}

/** Opens a memory on a fresh database (or the given one) with a fake clock. */
export async function openTestMemory(options: OpenMemoryOptions = {}): Promise<TestMemory> {
  const clock = (options.clock as FakeClock | undefined) ?? fakeClock();
  const factory = (options.indexedDB as IDBFactory | undefined) ?? (onDisk ? sqliteDirectory(freshDirectory()) : freshIndexedDB().indexedDB);
  const name = options.name ?? 'test';
  // On disk the suite checks the semantics; durability (the sync of each commit) has tests of its own (test/node-store).
  const durability = options.durability ?? (onDisk ? 'relaxed' : undefined);
  const memory = await openMemoryAt(factory, { ...options, name, clock, ...(durability ? { durability } : {}) });
  return { memory, clock, factory, name, stores: () => readStores(factory, name), dump: () => dumpDatabase(factory, name) };
}

/** The stand-in factory of a directory of SQLite stores: what {@link openTestMemory} and {@link openMemoryAt} open on disk. */
export function sqliteDirectory(directory: string): IDBFactory {
  return new SqliteDirectory(directory) as unknown as IDBFactory;
}

/** The SQLite file of database `name` when `factory` is a {@link sqliteDirectory}; undefined for an IndexedDB. */
export function sqliteFileOf(factory: IDBFactory, name: string): string | undefined {
  return factory instanceof SqliteDirectory ? join(factory.directory, fileNameOf(name)) : undefined;
}

/** The storage port on the database `factory` holds, opened directly (no memory): for tests that change rows behind zeromem's back. */
export function openStoreAt(factory: IDBFactory, name: string): Promise<StoragePort> {
  if (factory instanceof SqliteDirectory) return openSqliteStore(factory.directory, name, { durability: 'relaxed' });
  return openDexieStore(name, { indexedDB: factory, IDBKeyRange });
}

/** Opens a memory on the database `factory` holds (an IndexedDB factory, or a test's SQLite directory on disk). */
export function openMemoryAt(factory: IDBFactory, options: OpenMemoryOptions): Promise<Memory> {
  const { indexedDB: _factory, IDBKeyRange: _range, ...rest } = options;
  if (factory instanceof SqliteDirectory) return openNodeMemory({ ...rest, directory: factory.directory });
  return openMemory({ IDBKeyRange, ...rest, indexedDB: factory });
}

/** Every row of every object store of a database (on disk: of every table, as the port's rows), by store name. */
export async function readStores(factory: IDBFactory, name: string): Promise<Record<string, unknown[]>> {
  const file = sqliteFileOf(factory, name);
  if (file) return readSqliteStore(file);
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = factory.open(name);
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
  // Vectors as the port hands them out (the table holds them trimmed, store/database.ts v7).
  if (stores['vectors']) stores['vectors'] = (stores['vectors'] as StoredVectorRow[]).map(vectorRowOf);
  return stores;
}

/** Every string stored anywhere in the database, for "is it gone?" checks. */
export async function dumpDatabase(factory: IDBFactory, name: string): Promise<string> {
  const stores = await readStores(factory, name);
  const file = sqliteFileOf(factory, name);
  if (file) stores['record_tags'] = readSqliteTable(file, 'record_tags');
  return Object.values(stores)
    .map((rows) => JSON.stringify(rows))
    .join('\n');
}

/** Total number of rows over every object store. */
export async function rowCount(factory: IDBFactory, name: string): Promise<number> {
  const stores = await readStores(factory, name);
  return Object.values(stores).reduce((sum, rows) => sum + rows.length, 0);
}

/** Awaits a promise that must reject (or a function that must throw) with a ZeromemError; returns it. */
export async function rejection(work: Promise<unknown> | (() => unknown)): Promise<ZeromemError> {
  let outcome: unknown;
  try {
    await (typeof work === 'function' ? work() : work);
    outcome = undefined;
  } catch (err) {
    outcome = err;
  }
  if (outcome === undefined) throw new Error('expected a rejection, but the call succeeded');
  if (!(outcome instanceof ZeromemError)) throw new Error(`expected a ZeromemError, got ${String(outcome)}`, { cause: outcome });
  expect(ERROR_CODES).toContain(outcome.code);
  return outcome;
}

/** Asserts a ZeromemError with this code and, when given, this first issue path. */
export async function expectCode(work: Promise<unknown> | (() => unknown), code: ErrorCode, path?: string): Promise<ZeromemError> {
  const err = await rejection(work);
  expect(err.code, err.message).toBe(code);
  if (path !== undefined) expect(err.details.issues?.[0]?.path, err.message).toBe(path);
  return err;
}

/** The fast-check seed, printed; `FC_SEED` replays one (the test kit's, test/kit/seed.ts). */
export { testSeed as fcSeed } from '../../../test/kit/seed.ts';

/** The fields every public record has, and only these. */
export const RECORD_FIELDS = [
  'accessCount',
  'closedBy',
  'content',
  'contentHash',
  'createdAt',
  'expiresAt',
  'id',
  'importance',
  'key',
  'lastAccessedAt',
  'layer',
  'mergedFrom',
  'metadata',
  'namespace',
  'namespaceKey',
  'source',
  'statedUntil',
  'tags',
  'tier',
  'updatedAt',
  'validFrom',
  'validUntil',
  'version',
] as const;
