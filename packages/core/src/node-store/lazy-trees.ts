/**
 * The record trees of a loaded object store (its own and its indexes'), built only when a
 * read needs them, so an open reads nothing but the schema, a first recall reads only what
 * it touches, and a write reads only what it looks up. Until then the file answers: a
 * lookup by key and a count of the store are SQLite queries on its rows, and every read
 * of an index (lookups, ranges in either direction, counts) is one on the index's entries,
 * which the file keeps in the index's order (StorageFile.entries). A store's tree is built
 * from its rows' keys (StorageFile.eachKey) when a read needs more (a range, a cursor); an
 * index's from its entries, when it is read while the store has uncommitted changes, or
 * after many entries were read from the file.
 *
 * Until then the file holds the store's committed state, and a write does not build
 * anything: a put, add or delete by key on an unbuilt store goes to an overlay of the
 * transaction's changes (an existing record looked up in the file), and an unbuilt index
 * skips its maintenance (the file's entries are written with the commit); the changed keys
 * are noted. Once the file has the commit ({@link committedToFile}) overlay and notes are
 * dropped: the file is the store again. A tree built before that is the file's rows (or
 * entries) but the noted keys', plus the noted keys' records as they are in memory, so it
 * equals the store. Unique indexes are built before a write (their constraint is checked
 * on the tree), and everything before a schema change; so a failing read of the file fails
 * a transaction's start or one of its requests, never a rollback (a rollback only touches
 * keys in the overlay).
 */
import { IDBKeyRange } from 'fake-indexeddb';
import type { RawIndex, RawObjectStore, RawRecord, RawRecordStore } from './fake-indexeddb-internals.ts';
import { encodeKey } from './key-codec.ts';
import type { KeyBounds, StoredSchema } from './storage-file.ts';

/**
 * How a store's trees are read from the file: its records (in key order), and while its
 * tree is unbuilt, one record and counts; an index's entries (by its position in the
 * schema) in a range, all of them in order, and counts.
 */
export interface TreeSource {
  records(): RawRecord[];
  record(key: IDBValidKey): RawRecord | undefined;
  count(range: KeyBounds | undefined): number;
  entries(index: number, range: KeyBounds | undefined, descending: boolean): Iterable<RawRecord>;
  eachEntry(index: number, each: (key: IDBValidKey, primaryKey: IDBValidKey, encodedPrimaryKey: string) => void): void;
  entryCount(index: number, range: KeyBounds | undefined): number;
}

/** What a loaded store holds besides its trees while some of them are unbuilt. */
interface Unbuilt {
  /** Builds the store's own tree, then each index tree still unbuilt (`unique`: only the unique ones). */
  build(which: 'all' | 'unique'): void;
  /** Uncommitted changes to the store's records while its own tree is unbuilt (encoded key -> record, `null` deleted). */
  overlay: Map<string, RawRecord | null>;
  /** Keys changed since the last commit (encoded -> key), for index trees built before the file has them. */
  changed: Map<string, IDBValidKey>;
  /** Drops every tree built so far: the store is the file's again, read on first use as after the open. */
  forget(): void;
}

const unbuilt = new WeakMap<RawObjectStore, Unbuilt>();

/** Leaves `store`'s trees (created empty) unbuilt until first read. */
export function buildTreesOnFirstUse(store: RawObjectStore, schema: StoredSchema, source: TreeSource): void {
  const state: Unbuilt = { build: () => {}, overlay: new Map(), changed: new Map(), forget: () => {} };
  // The store's own tree: fake-indexeddb's RecordStore keeps it in `records` (and replaces it on clear).
  const own = store.records;
  let tree = own.records;
  let ownBuilt = false;
  const ownOnFirstUse = () =>
    lazyProperty(own, 'records', () => {
      const fromFile = source.records();
      const overlay = state.overlay;
      buildTree(own, overlay.size ? fromFile.filter((record) => !overlay.has(encodeKey(record.key))) : fromFile, tree);
      for (const record of overlay.values()) if (record) tree.put(record);
      overlay.clear();
      ownBuilt = true;
      return tree;
    });
  let buildOwn = ownOnFirstUse();
  const { get, put, delete: remove, clear } = own;
  // Until then, a lookup by key is the overlay's or the file's (one indexed SQLite read).
  // Keys come encoded by the caller: a write encodes its key once for the note, the lookup and the overlay.
  const lookup = (key: IDBValidKey, encoded: string): RawRecord | undefined => {
    const changed = state.overlay.get(encoded);
    return changed !== undefined ? (changed ?? undefined) : source.record(key);
  };
  const note = (key: IDBValidKey, encoded = encodeKey(key)) => void state.changed.set(encoded, key);
  own.get = function (this: RawRecordStore, key: unknown) {
    return ownBuilt || key instanceof IDBKeyRange ? get.call(this, key as IDBValidKey) : lookup(key as IDBValidKey, encodeKey(key as IDBValidKey));
  };
  own.put = function (this: RawRecordStore, record: RawRecord, noOverwrite?: boolean) {
    const encoded = encodeKey(record.key);
    note(record.key, encoded);
    if (ownBuilt) return put.call(this, record, noOverwrite);
    const existing = lookup(record.key, encoded);
    // The tree throws the engine's ConstraintError: built for this rare case.
    if (existing && noOverwrite) return put.call(this, record, noOverwrite);
    state.overlay.set(encoded, record);
    return existing;
  };
  own.delete = function (this: RawRecordStore, key: unknown) {
    if (ownBuilt || key instanceof IDBKeyRange) {
      const deleted = remove.call(this, key);
      for (const record of deleted) note(record.key);
      return deleted;
    }
    const encoded = encodeKey(key as IDBValidKey);
    note(key as IDBValidKey, encoded);
    const existing = lookup(key as IDBValidKey, encoded);
    state.overlay.set(encoded, null);
    return existing ? [existing] : [];
  };
  own.clear = function (this: RawRecordStore) {
    const deleted = clear.call(this);
    for (const record of deleted) note(record.key);
    return deleted;
  };
  // A count is the file's while nothing is uncommitted in the overlay.
  const { count } = store;
  store.count = function (this: RawObjectStore, range: unknown) {
    return ownBuilt || state.overlay.size ? count.call(this, range) : source.count(range as KeyBounds | undefined);
  };

  const indexes = [...store.rawIndexes.values()].map((index) => indexOnFirstUse(index, schema.indexes.findIndex((stored) => stored.name === index.name), source, state));
  state.build = (which) => {
    if (which === 'all') buildOwn();
    for (const index of indexes) index.build(which);
  };
  state.forget = () => {
    state.overlay.clear();
    state.changed.clear();
    if (ownBuilt) {
      tree = own.records; // a clear replaced it
      ownBuilt = false;
      buildOwn = ownOnFirstUse();
    }
    for (const index of indexes) index.forget();
  };
  unbuilt.set(store, state);
}

/** An index that had this many entries read from the file gets its tree: it is in heavy use (a cursor re-reads its range at each step). */
const READS_BEFORE_TREE = 50_000;

/**
 * Leaves an index's tree unbuilt until the index is read while the store has uncommitted
 * changes (or often): until then its reads are answered from its entries in the file
 * (StorageFile.entries, in the index's order) and the store's writes skip its maintenance
 * (the file's entries are written with each commit). Returns what builds it now
 * (`unique`: only if it is a unique index).
 */
function indexOnFirstUse(index: RawIndex, position: number, source: TreeSource, state: Unbuilt): { build(which: 'all' | 'unique'): void; forget(): void } {
  let records = index.records;
  let built = false;
  let reads = 0;
  const { storeRecord, deleteRecord, count } = index;
  index.storeRecord = function (this: RawIndex, record: RawRecord) {
    if (built) storeRecord.call(this, record);
  };
  index.deleteRecord = function (this: RawIndex, record: RawRecord) {
    if (built) deleteRecord.call(this, record);
  };
  // The file's entries as a record store: RecordStore's own reads (get, values in any
  // direction) over a tree whose records are read from the file.
  const entries = function* (range: KeyBounds | undefined, descending = false) {
    for (const entry of source.entries(position, range, descending)) {
      reads++;
      yield entry;
    }
  };
  const fromFile = Object.create(Object.getPrototypeOf(records) as object, {
    keysAreUnique: { value: index.unique },
    records: { value: { getRecords: entries, getAllRecords: (descending?: boolean) => entries(undefined, descending), size: () => source.entryCount(position, undefined) } },
    // Only reached with nothing uncommitted (a store's clear clears its indexes), so the store is empty already.
    clear: { value: () => [] },
  }) as RawRecordStore;
  const answeredByFile = () => !built && state.changed.size === 0 && reads < READS_BEFORE_TREE;
  index.count = function (this: RawIndex, range: unknown) {
    return answeredByFile() ? source.entryCount(position, range as KeyBounds | undefined) : count.call(this, range);
  };
  const settle = (value: unknown) => Object.defineProperty(index, 'records', { value, writable: true, configurable: true, enumerable: true });
  const build = () => {
    if (built) return;
    const changed = state.changed;
    const sorted: RawRecord[] = [];
    source.eachEntry(position, (key, primaryKey, encodedPrimaryKey) => {
      if (!changed.has(encodedPrimaryKey)) sorted.push({ key, value: primaryKey });
    });
    // The changed keys' records as they are now (the overlay's or the store tree's), their
    // values read before anything is built: a failing read leaves the index unbuilt.
    const current = [...changed.values()].flatMap((key) => index.rawObjectStore.records.get(key) ?? []);
    for (const record of current) void record.value;
    buildTree(records, sorted);
    built = true;
    settle(records);
    for (const record of current) storeRecord.call(index, record);
  };
  const onFirstUse = () =>
    Object.defineProperty(index, 'records', {
      configurable: true,
      enumerable: true,
      get() {
        if (answeredByFile()) return fromFile;
        build();
        return records;
      },
      set: settle,
    });
  onFirstUse();
  return {
    build: (which) => {
      if (which === 'all' || index.unique) build();
    },
    forget: () => {
      reads = 0;
      if (!built) return;
      records = index.records;
      built = false;
      onFirstUse();
    },
  };
}

/** Builds the trees of `store` a transaction needs unbuilt before it starts: `all` for a schema change, else the unique indexes (a write checks their constraint on the tree). */
export function buildTreesBefore(store: RawObjectStore, which: 'all' | 'unique'): void {
  unbuilt.get(store)?.build(which);
}

/**
 * Another process changed the file: every tree of `store` built so far is dropped (and
 * built again from the file when a read needs it). Returns false for a store whose trees
 * are not read from the file (one created in this process's upgrade), which changes nothing.
 */
export function forgetBuiltTrees(store: RawObjectStore): boolean {
  const state = unbuilt.get(store);
  state?.forget();
  return state !== undefined;
}

/** The file now holds `store`'s changes so far (a commit wrote them): what was kept of them for unbuilt trees can go. */
export function committedToFile(store: RawObjectStore): void {
  const state = unbuilt.get(store);
  if (!state) return;
  state.overlay.clear();
  state.changed.clear();
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
function buildTree(records: RawRecordStore, sorted: RawRecord[], tree = records.records): void {
  tree._root = tree._rebuild(sorted, undefined, false);
  tree._numNodes = sorted.length;
  tree._numTombstones = 0;
}
