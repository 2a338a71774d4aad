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
  put(record: RawRecord, noOverwrite?: boolean): RawRecord | undefined;
}

/** fake-indexeddb's `RecordStore`: every change to an object store's rows goes through put, delete and clear. */
export interface RawRecordStore {
  records: RawTree;
  get(key: IDBValidKey): RawRecord | undefined;
  put(record: RawRecord, noOverwrite?: boolean): RawRecord | undefined;
  delete(key: unknown): RawRecord[];
  clear(): RawRecord[];
  values(range?: unknown, direction?: IDBCursorDirection): Iterable<RawRecord>;
}

export interface RawIndex {
  records: RawRecordStore;
  /** The key a value is stored under in this index (`undefined`: none); storeRecord and deleteRecord both use it. */
  getIndexKey(value: unknown): IDBValidKey | undefined;
  /** Adds / removes a store record's entries (the store's put, delete and their rollbacks call them for each index). */
  storeRecord(record: RawRecord): void;
  deleteRecord(record: RawRecord): void;
  /** How many entries are in a range (`undefined`: all), as `count` on an index answers. */
  count(range: unknown): number;
  rawObjectStore: RawObjectStore;
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
  /** A copy of the value under `key` for a reader (fake-indexeddb: `structuredClone(record.value)`); Index reads go through it too. */
  getValue(key: unknown): unknown;
  /** How many records are in a range (`undefined`: all), as `count` answers. */
  count(range: unknown): number;
  /** Copies of the values in a range, as `getAll` returns them. */
  getAllValues(range: unknown, count: number | undefined, direction: IDBCursorDirection | undefined): unknown[];
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
  _requests: Array<{ request: { readyState: string }; operation: () => unknown }>;
  _started: boolean;
  _start(): void;
  /** Called once it is committed or aborted (twice for some aborts). */
  _markFinished(): void;
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
