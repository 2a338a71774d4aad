/**
 * The record trees of a loaded object store (its own and its indexes'), built when first
 * needed instead of at open, so an open reads nothing but the schema and a first recall
 * reads only what it touches. The store's tree is built from its rows' keys
 * (StorageFile.eachKey), its index trees together from one pass over the rows' stored
 * index fields, each the first time anything reaches it: a read, or a write transaction on
 * the store (everything built before it starts, so a failing read of the file fails the
 * transaction's start, never a rollback). Until a tree is built the file holds exactly its
 * committed state: every change to a store goes through its tree and each of its indexes,
 * so building from the file then is building from the store.
 */
import { IDBKeyRange } from 'fake-indexeddb';
import type { RawIndex, RawObjectStore, RawRecord, RawRecordStore } from './fake-indexeddb-internals.ts';
import { indexKeyOf, multiEntryKeys } from './index-keys.ts';
import { encodeKey } from './key-codec.ts';
import type { KeyRow, StoredSchema } from './storage-file.ts';

const pending = new WeakMap<RawObjectStore, Array<() => void>>();

/** How a store's trees are read from the file: its records (in key order), its rows with their index fields, and while its tree is unbuilt, one record and counts. */
export interface TreeSource {
  records(): RawRecord[];
  rows(each: (row: KeyRow) => void): void;
  record(key: IDBValidKey): RawRecord | undefined;
  count(range: { lower?: IDBValidKey; upper?: IDBValidKey; lowerOpen: boolean; upperOpen: boolean } | undefined): number;
}

/** Leaves `store`'s trees (created empty) unbuilt until first use. */
export function buildTreesOnFirstUse(store: RawObjectStore, schema: StoredSchema, source: TreeSource): void {
  const builds: Array<() => void> = [];
  // The store's own tree: fake-indexeddb's RecordStore keeps it in `records` (and replaces it on clear).
  const own = store.records;
  const tree = own.records;
  let built = false;
  const buildOwn = lazyProperty(own, 'records', () => {
    buildTree(own, source.records(), tree);
    built = true;
    return tree;
  });
  builds.push(buildOwn);
  // Until then, a lookup by key and a count of the store are answered by the file (one
  // indexed SQLite read), so a first recall does not build the trees of the stores it only counts or picks from.
  const { get } = own;
  own.get = function (this: RawRecordStore, key: unknown) {
    return built || key instanceof IDBKeyRange ? get.call(this, key as IDBValidKey) : source.record(key as IDBValidKey);
  };
  const { count } = store;
  store.count = function (this: RawObjectStore, range: unknown) {
    return built ? count.call(this, range) : source.count(range as Parameters<TreeSource['count']>[0]);
  };
  const indexes = [...store.rawIndexes.values()];
  if (indexes.length) {
    const trees = new Map<RawIndex, RawRecordStore>(indexes.map((index) => [index, index.records]));
    let entries: Map<string, RawRecord[]> | undefined;
    const buildIndexes = indexes.map((index) =>
      lazyProperty(index, 'records', () => {
        entries ??= indexEntries(schema, source.rows);
        const records = trees.get(index)!;
        buildTree(records, entries.get(index.name) ?? []);
        return records;
      }),
    );
    builds.push(() => buildIndexes.forEach((build) => build()));
  }
  pending.set(store, builds);
}

/** Builds `store`'s trees now if they are still unbuilt (before a write transaction on it). */
export function buildTreesNow(store: RawObjectStore): void {
  const builds = pending.get(store);
  if (!builds) return;
  for (const build of builds) build();
  pending.delete(store);
}

/**
 * Makes `object[key]` computed by `build` on first read (a write replaces it), as a plain
 * property from then on. A build that throws (the file) changes nothing: the next read tries again.
 * Returns a function that builds it now.
 */
function lazyProperty<T extends object>(object: T, key: string, build: () => unknown): () => void {
  const settle = (value: unknown) => Object.defineProperty(object, key, { value, writable: true, configurable: true, enumerable: true });
  Object.defineProperty(object, key, {
    configurable: true,
    enumerable: true,
    get() {
      const value = build();
      settle(value);
      return value;
    },
    set: settle,
  });
  return () => void (object as Record<string, unknown>)[key];
}

/** Fills a record store's tree (or `tree`, to be its tree) from records already in its order (balanced, without per-record inserts). */
export function buildTree(records: RawRecordStore, sorted: RawRecord[], tree = records.records): void {
  tree._root = tree._rebuild(sorted, undefined, false);
  tree._numNodes = sorted.length;
  tree._numTombstones = 0;
}

/** Each index's entries, sorted by index key (then primary key) as its tree is ordered, from the rows in key order. */
function indexEntries(schema: StoredSchema, rows: (each: (row: KeyRow) => void) => void): Map<string, RawRecord[]> {
  const indexes = schema.indexes.map((index) => ({
    index,
    paths: (Array.isArray(index.keyPath) ? index.keyPath : [index.keyPath]).map((path) => (path === '' ? [] : path.split('.'))),
    entries: new SortedEntries(index.unique),
  }));
  rows((row) => {
    for (const { index, paths, entries } of indexes) {
      const indexKey = indexKeyOf(paths, Array.isArray(index.keyPath), index.multiEntry, row.indexed);
      if (indexKey === undefined) continue;
      for (const key of index.multiEntry && Array.isArray(indexKey) ? multiEntryKeys(indexKey) : [indexKey]) entries.add(key, row.key, row.encodedKey);
    }
  });
  return new Map(indexes.map(({ index, entries }) => [index.name, entries.sorted()]));
}

/**
 * An index's entries in its tree's order: by key alone for a unique index, else by key
 * then primary key. Most come in order already (time-ordered keys, one user), so the
 * order strings are only kept (and sorted) once an entry comes out of order.
 */
class SortedEntries {
  readonly #unique: boolean;
  readonly #entries: RawRecord[] = [];
  #orders: string[] | undefined;
  #last = '';

  constructor(unique: boolean) {
    this.#unique = unique;
  }

  add(key: IDBValidKey, primaryKey: IDBValidKey, encodedPrimaryKey: string): void {
    const order = this.#unique ? encodeKey(key) : encodeKey(key) + encodedPrimaryKey;
    if (!this.#orders && order < this.#last) this.#orders = this.#entries.map((entry) => this.#orderOf(entry));
    this.#orders?.push(order);
    this.#last = order;
    this.#entries.push({ key, value: primaryKey });
  }

  sorted(): RawRecord[] {
    const orders = this.#orders;
    if (!orders) return this.#entries;
    const positions = Array.from(orders.keys()).sort((a, b) => (orders[a]! < orders[b]! ? -1 : orders[a]! > orders[b]! ? 1 : 0));
    return positions.map((i) => this.#entries[i]!);
  }

  #orderOf(entry: RawRecord): string {
    return this.#unique ? encodeKey(entry.key) : encodeKey(entry.key) + encodeKey(entry.value as IDBValidKey);
  }
}
