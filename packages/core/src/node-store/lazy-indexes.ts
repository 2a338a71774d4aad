/**
 * Index trees of a loaded object store, built when first needed instead of at open. A
 * store's indexes are built together, from one pass over the rows' stored index fields
 * (StorageFile.eachKey), the first time anything reaches one of them: a read through an
 * index, or a write transaction on the store (built before it starts, so a failing read
 * of the file fails the transaction's start, never a rollback). Until then the file holds
 * exactly the store's committed state, since every change to a store with indexes goes
 * through its indexes, so building from the file then is building from the store.
 */
import type { RawIndex, RawObjectStore, RawRecord, RawRecordStore } from './fake-indexeddb-internals.ts';
import { indexKeyOf, multiEntryKeys } from './index-keys.ts';
import { encodeKey } from './key-codec.ts';
import type { KeyRow, StoredSchema } from './storage-file.ts';

const pending = new WeakMap<RawObjectStore, () => void>();

/**
 * Leaves `store`'s index trees (created empty) unbuilt until first use; `rows` reads the
 * store's rows with their index fields, in key order.
 */
export function buildIndexesOnFirstUse(store: RawObjectStore, schema: StoredSchema, rows: (each: (row: KeyRow) => void) => void): void {
  const indexes = [...store.rawIndexes.values()];
  if (indexes.length === 0) return;
  const trees = new Map<RawIndex, RawRecordStore>(indexes.map((index) => [index, index.records]));
  const build = () => {
    const entries = indexEntries(schema, rows); // may throw (the file): then nothing changes and the next use tries again
    pending.delete(store);
    for (const [index, records] of trees) {
      Object.defineProperty(index, 'records', { value: records, writable: true, configurable: true, enumerable: true });
      buildTree(records, entries.get(index.name) ?? []);
    }
  };
  pending.set(store, build);
  for (const index of indexes) {
    Object.defineProperty(index, 'records', {
      configurable: true,
      enumerable: true,
      get() {
        build();
        return trees.get(index);
      },
    });
  }
}

/** Builds `store`'s indexes now if they are still unbuilt (before a write transaction on it). */
export function buildIndexesNow(store: RawObjectStore): void {
  pending.get(store)?.();
}

/** Fills a record tree from records already in its order (balanced, without per-record inserts). */
export function buildTree(records: RawRecordStore, sorted: RawRecord[]): void {
  const tree = records.records;
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
