/**
 * The parts of fake-indexeddb's engine (6.2.8, pinned exactly in package.json) that the
 * durable store reaches into: the in-memory database behind a connection, its object
 * stores' record trees, and a transaction's finishing step. They are not public API, so
 * they are typed here in one place and checked by test/node-store/internals.test.ts,
 * which fails if an upgrade moves them.
 */

/** A record of an object store's tree: its primary key and its (already cloned) value. */
export interface RawRecord {
  key: IDBValidKey;
  value: unknown;
}

/** fake-indexeddb's red-black `BinarySearchTree` under a record store; `_rebuild` builds a balanced one from sorted records. */
export interface RawTree {
  _root: unknown;
  _numNodes: number;
  _numTombstones: number;
  _rebuild(sorted: RawRecord[], parent: undefined, red: boolean): unknown;
}

/** fake-indexeddb's `RecordStore`: every change to an object store's rows goes through put, delete and clear. */
export interface RawRecordStore {
  records: RawTree;
  get(key: IDBValidKey): RawRecord | undefined;
  put(record: RawRecord, noOverwrite?: boolean): RawRecord | undefined;
  delete(key: unknown): RawRecord[];
  clear(): RawRecord[];
  values(): Iterable<RawRecord>;
}

export interface RawIndex {
  records: RawRecordStore;
  name: string;
  keyPath: string | string[];
  multiEntry: boolean;
  unique: boolean;
}

/** fake-indexeddb's `ObjectStore`. */
export interface RawObjectStore {
  name: string;
  keyPath: string | string[] | null;
  autoIncrement: boolean;
  records: RawRecordStore;
  keyGenerator: { num: number } | null;
  rawIndexes: Map<string, RawIndex>;
}

/** fake-indexeddb's `Database`. */
export interface RawDatabase {
  rawObjectStores: Map<string, RawObjectStore>;
  transactions: RawTransaction[];
}

/** fake-indexeddb's `FDBTransaction`, with the private fields used. */
export interface RawTransaction extends IDBTransaction {
  _scope: Set<string>;
  _state: 'active' | 'inactive' | 'committing' | 'finished';
  _requests: Array<{ request: { readyState: string } }>;
  _start(): void;
  _abort(errorName: string | null): void;
  error: DOMException | null;
  durability: IDBTransactionDurability;
}

export interface RawConnection extends IDBDatabase {
  _rawDatabase: RawDatabase;
}

export interface RawObjectStoreHandle extends IDBObjectStore {
  _rawObjectStore: RawObjectStore;
}
