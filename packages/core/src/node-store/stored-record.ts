/**
 * A record loaded from the file whose value is decoded when it is first read, not at open.
 * A store's values are only needed at open for their index keys (computed from a decoding
 * that is then dropped); keeping the encoded form instead of a decoded object graph is
 * what lets a 100k store open without building (and garbage-collecting) 100k object graphs.
 */
import type { RawObjectStore, RawRecord } from './fake-indexeddb-internals.ts';
import { decodeValue } from './storage-file.ts';

const ENCODED = Symbol('encoded');

export class StoredRecord implements RawRecord {
  readonly key: IDBValidKey;
  #json: string | null;
  #bytes: Buffer | null;
  #value: unknown = ENCODED;

  /** A row as {@link decodeValue} reads it: `json`, else `bytes`. */
  constructor(key: IDBValidKey, json: string | null, bytes: Buffer | null) {
    this.key = key;
    this.#json = json;
    this.#bytes = bytes;
  }

  /** The value, as the engine reads it (an index update, a write-through): decoded once and then kept. */
  get value(): unknown {
    if (this.#value === ENCODED) {
      this.#value = decodeValue(this.#json, this.#bytes);
      this.#json = this.#bytes = null;
    }
    return this.#value;
  }

  /** A copy of the value for a reader: a fresh decoding while it is still encoded (no clone needed), else a structured clone. */
  copy(): unknown {
    return this.#value === ENCODED ? decodeValue(this.#json, this.#bytes) : structuredClone(this.#value);
  }
}

/**
 * Makes an object store's reads copy a {@link StoredRecord} by decoding it (what
 * fake-indexeddb's getValue/getAllValues do with `structuredClone`, which would first
 * decode it for good and then clone it). Index reads go through the store's getValue.
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
