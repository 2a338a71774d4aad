/**
 * A record loaded from the file whose value stays in the file until it is first read. Open
 * only needs each row's key and the fields its indexes read (stored next to the value),
 * so a 100k store opens without reading, holding or garbage-collecting 100k values.
 */
import type { RawObjectStore, RawRecord } from './fake-indexeddb-internals.ts';

const UNREAD = Symbol('unread');

/** Reads and decodes a row's value (StorageFile.readValue): synchronous, as the engine's record reads are. */
export type ReadValue = (rowid: number) => unknown;

/** A record of a loaded store whose value is read from the file by row id when needed; held decoded once the engine itself reads it (index updates, write-through), never for a reader. */
export class StoredRecord implements RawRecord {
  readonly key: IDBValidKey;
  readonly #rowid: number;
  readonly #read: ReadValue;
  #value: unknown = UNREAD;

  constructor(key: IDBValidKey, rowid: number, read: ReadValue) {
    this.key = key;
    this.#rowid = rowid;
    this.#read = read;
  }

  /** The value, as the engine reads it (an index update, a write-through): read once and then kept. */
  get value(): unknown {
    if (this.#value === UNREAD) this.#value = this.#read(this.#rowid);
    return this.#value;
  }

  /** A copy of the value for a reader: a fresh read while it is still in the file (nothing kept, no clone needed), else a structured clone. */
  copy(): unknown {
    return this.#value === UNREAD ? this.#read(this.#rowid) : structuredClone(this.#value);
  }
}

/**
 * Makes an object store's reads copy a {@link StoredRecord} by reading it (what
 * fake-indexeddb's getValue/getAllValues do with `structuredClone`, which would first
 * read it for good and then clone it). Index reads go through the store's getValue.
 */
export function readStoredRecordsDirectly(store: RawObjectStore): void {
  const copy = (record: RawRecord) => (record instanceof StoredRecord ? record.copy() : structuredClone(record.value));
  store.getValue = function (this: RawObjectStore, key: unknown) {
    const record = this.records.get(key as IDBValidKey);
    return record !== undefined ? copy(record) : undefined;
  };
  store.getAllValues = function (this: RawObjectStore, range: unknown, count: number | undefined, direction: IDBCursorDirection | undefined) {
    const limit = count === undefined || count === 0 ? Infinity : count;
    const values: unknown[] = [];
    for (const record of this.records.values(range, direction)) {
      values.push(copy(record));
      if (values.length >= limit) break;
    }
    return values;
  };
}
