import { deserialize, serialize } from 'node:v8';
import type BetterSqlite3 from 'better-sqlite3';
import { ZeromemError } from '../model/errors.ts';
import { BUSY_TIMEOUT_MS, CHECKPOINT_WAIT_MS, prepareStoreFile, storageError } from './store-file.ts';
import { entryKeysOf, indexShape, type IndexShape } from './index-keys.ts';
import { blobToKey, decodeKey, encodeKey, keyToBlob } from './key-codec.ts';

/** An object store as it is written down: enough to create it again, indexes included. */
export interface StoredSchema {
  name: string;
  keyPath: string | string[] | null;
  autoIncrement: boolean;
  /** The key generator's current number (autoIncrement stores), so a reopen never reuses a key. */
  keyGenerator: number;
  indexes: Array<{ name: string; keyPath: string | string[]; multiEntry: boolean; unique: boolean }>;
}

/** One stored row: its key and value, decoded. */
export interface StoredRow {
  key: IDBValidKey;
  value: unknown;
}

/**
 * One stored row as {@link StorageFile.eachKey} reads it: its key decoded (and as
 * {@link encodeKey} wrote it), and its row id (to read its value later, {@link StorageFile.readValue}).
 */
export interface KeyRow {
  key: IDBValidKey;
  encodedKey: string;
  rowid: number;
}

/** A key range as IndexedDB gives it, bounds `undefined` when open-ended. */
export interface KeyBounds {
  lower?: IDBValidKey;
  upper?: IDBValidKey;
  lowerOpen: boolean;
  upperOpen: boolean;
}

/** A change of one row inside {@link StorageFile.commit}: its key as {@link encodeKey} wrote it, and the current value or `undefined` for a deletion. */
export interface RowChange {
  key: string;
  value: unknown;
}

/** What one commit writes: per store, its rows that changed (and whether it was cleared first). */
export interface StoreChanges {
  store: string;
  cleared: boolean;
  rows: RowChange[];
  keyGenerator: number | null;
}

/**
 * Values go in as JSON when JSON gives back exactly the same value (records, audit rows:
 * parsing JSON is about twice as fast as node:v8's structured clone), otherwise as
 * structured-clone bytes (typed arrays of vectors and index snapshots).
 */
function encodeValue(value: unknown): [string | null, Buffer | null] {
  return isExactJson(value) ? [JSON.stringify(value), null] : [null, serialize(value)];
}

/** The value {@link encodeValue} encoded. */
function decodeValue(json: string | null, bytes: Buffer | null): unknown {
  return json !== null ? JSON.parse(json) : deserialize(bytes!);
}

/** A value as a row stores it: its index fields (`ix`, see {@link encodeRow}) and the rest, as JSON or bytes. */
type EncodedValue = [ix: string | Buffer | null, json: string | null, bytes: Buffer | null];

/** Stands in the stored rest of a value for each index field, which `ix` holds: the fields keep their places (and so the value its property order). */
const IN_IX = 0;

/**
 * A value split for its row: the top-level fields its store's indexes read (`fields`, the
 * first step of each index key path) go to `ix`, as an array in `fields` order (`null`
 * for one the value lacks: to an index, no field and `null` are the same, no key) encoded
 * like a value, and the rest keeps a placeholder where each of them was. An index tree is
 * built from `ix` alone; a value read joins both ({@link decodeRow}), so nothing is stored
 * twice. A value that is not a plain object, or a store without indexes, stores the whole
 * value and `ix` null.
 */
function encodeRow(fields: string[] | undefined, value: unknown): EncodedValue {
  if (!fields || value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return [null, ...encodeValue(value)];
  const picked: unknown[] = [];
  const rest: Record<string, unknown> = { ...value };
  for (const field of fields) {
    if (!Object.hasOwn(value, field)) {
      picked.push(null);
      continue;
    }
    picked.push((value as Record<string, unknown>)[field]);
    rest[field] = IN_IX;
  }
  const [json, bytes] = encodeValue(picked);
  return [json ?? bytes, ...encodeValue(rest)];
}

/** The index fields in a row's `ix`, as an object of the fields (what an index tree is built from). */
function decodeIndexFields(fields: string[], ix: string | Buffer): Record<string, unknown> {
  const values = (typeof ix === 'string' ? JSON.parse(ix) : deserialize(ix)) as unknown[];
  const object: Record<string, unknown> = {};
  for (let i = 0; i < fields.length; i++) if (values[i] !== null) object[fields[i]!] = values[i];
  return object;
}

/** The value {@link encodeRow} split, joined again: each field that has its placeholder in the rest gets its value from `ix`. */
export function decodeRow(fields: string[] | undefined, ix: string | Buffer | null, json: string | null, bytes: Buffer | null): unknown {
  const value = decodeValue(json, bytes) as Record<string, unknown>;
  if (ix === null || !fields) return value;
  const values = (typeof ix === 'string' ? JSON.parse(ix) : deserialize(ix)) as unknown[];
  for (let i = 0; i < fields.length; i++) if (Object.hasOwn(value, fields[i]!)) value[fields[i]!] = values[i];
  return value;
}

/** The fields {@link encodeRow} puts in `ix` for a store with these indexes; `undefined` when none are needed or they cannot be picked. */
export function indexFields(indexes: StoredSchema['indexes']): string[] | undefined {
  if (indexes.length === 0) return undefined;
  const fields = new Set<string>();
  for (const index of indexes) {
    for (const path of Array.isArray(index.keyPath) ? index.keyPath : [index.keyPath]) {
      if (path === '') return undefined;
      fields.add(path.split('.')[0]!);
    }
  }
  return [...fields];
}

/** Plain data that JSON round-trips unchanged: no undefined, no -0, NaN or Infinity, no holes, no class instances. */
function isExactJson(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!(i in value) || !isExactJson(value[i])) return false;
        return true;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      for (const key in value) if (!isExactJson((value as Record<string, unknown>)[key])) return false;
      return true;
    }
    default:
      return false;
  }
}

/**
 * One IndexedDB database in one SQLite file (better-sqlite3, WAL), shared by every process
 * that opens it: each IndexedDB transaction runs in one SQLite transaction
 * ({@link begin}), writes one after the other across processes. Rows are
 * (store, key, value): keys in an order-preserving encoding (key-codec.ts), values as
 * JSON or structured-clone bytes (node:v8, the algorithm IndexedDB stores values with).
 * Each index's entries are rows too, (store, index position, index key, primary key), both
 * keys encoded the same way, so SQLite's order of them is the index's order; they are
 * written with the rows they come from, in the same transaction. `secure_delete` zeroes
 * deleted content in the file, and {@link checkpoint} moves the WAL into the database and
 * truncates it.
 */
export class StorageFile {
  readonly path: string;
  readonly #db: BetterSqlite3.Database;
  readonly #storeIds = new Map<string, number>();
  /** Per store id: the value fields its indexes read ({@link indexFields}). */
  readonly #indexFields = new Map<number, string[] | undefined>();
  /** Per store id: its indexes' shapes, in schema order (an entry's `ix` is the position). */
  readonly #indexShapes = new Map<number, IndexShape[]>();
  readonly #statements = new Map<string, BetterSqlite3.Statement>();
  #readIndexed!: BetterSqlite3.Statement;
  #insertEntry!: BetterSqlite3.Statement;
  #deleteEntry!: BetterSqlite3.Statement;
  readonly #upsert: BetterSqlite3.Statement;
  readonly #readValue: BetterSqlite3.Statement;
  readonly #rowidOf: BetterSqlite3.Statement;
  readonly #delete: BetterSqlite3.Statement;
  readonly #clear: BetterSqlite3.Statement;
  readonly #setKeyGenerator: BetterSqlite3.Statement;
  #synchronous: 'FULL' | 'NORMAL' = 'FULL';
  #dataVersion: number;
  readonly #snapshot: BetterSqlite3.Statement;

  /**
   * Opens (creating it if needed) the file of database `name` in `directory`, shared with the other processes that have it open.
   * @throws ZeromemError INVALID_INPUT (a name too long for a file), STORAGE_FAILED with `details.storage.reason` locked, corrupt, read-only or unavailable; QUOTA_EXCEEDED when the disk is full
   */
  constructor(directory: string, name: string) {
    const { path, Database } = prepareStoreFile(directory, name, TABLES);
    this.path = path;
    let db: BetterSqlite3.Database | undefined;
    try {
      // Many processes share the file (WAL: readers never wait); a writer waits for another's transaction to end.
      db = new Database(this.path, { timeout: BUSY_TIMEOUT_MS });
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('secure_delete = ON');
      db.exec(`BEGIN IMMEDIATE; ${TABLES} COMMIT;`);
      // Files of earlier releases have no index fields: their rows are read whole when their entries are written and their old entries deleted.
      if (!(db.prepare('SELECT name FROM pragma_table_info(\'rows\')').pluck().all() as string[]).includes('ix')) db.exec('ALTER TABLE rows ADD COLUMN ix');
      // Files of earlier releases have no index entries: they are written at open (fillEntries).
      if (!(db.prepare('SELECT name FROM pragma_table_info(\'stores\')').pluck().all() as string[]).includes('entries')) db.exec('ALTER TABLE stores ADD COLUMN entries INTEGER NOT NULL DEFAULT 0');
      this.#upsert = db.prepare(
        'INSERT INTO rows (store, key, ix, json, bytes) VALUES (?, ?, ?, ?, ?) ON CONFLICT (store, key) DO UPDATE SET ix = excluded.ix, json = excluded.json, bytes = excluded.bytes',
      );
      this.#readValue = db.prepare('SELECT store, ix, json, bytes FROM rows WHERE rowid = ?').raw();
      this.#rowidOf = db.prepare('SELECT rowid FROM rows WHERE store = ? AND key = ?').pluck();
      this.#delete = db.prepare('DELETE FROM rows WHERE store = ? AND key = ?');
      this.#clear = db.prepare('DELETE FROM rows WHERE store = ?');
      this.#setKeyGenerator = db.prepare('UPDATE stores SET keyGenerator = ? WHERE id = ?');
      this.#readIndexed = db.prepare('SELECT ix, CASE WHEN ix IS NULL THEN json END, CASE WHEN ix IS NULL THEN bytes END FROM rows WHERE store = ? AND key = ?').raw();
      this.#insertEntry = db.prepare('INSERT OR IGNORE INTO entries (store, ix, key, pk) VALUES (?, ?, ?, ?)');
      this.#deleteEntry = db.prepare('DELETE FROM entries WHERE store = ? AND ix = ? AND key = ? AND pk = ?');
      this.#snapshot = db.prepare("SELECT 1 FROM meta WHERE k = 'version'");
    } catch (err) {
      if (db?.inTransaction) db.exec('ROLLBACK');
      db?.close();
      throw storageError(err, this.path, 'open');
    }
    this.#db = db;
    this.#dataVersion = db.pragma('data_version', { simple: true }) as number;
  }

  /**
   * The stored IndexedDB version and object stores, or `undefined` for a new file (first
   * at open; again when another process changed the file, {@link changedElsewhere}).
   */
  readSchema(): { version: number; stores: StoredSchema[] } | undefined {
    try {
      const version = this.#db.prepare("SELECT v FROM meta WHERE k = 'version'").pluck().get() as number | undefined;
      if (version === undefined) return undefined;
      const rows = this.#db.prepare('SELECT id, schema, keyGenerator FROM stores ORDER BY id').all() as Array<{ id: number; schema: string; keyGenerator: number }>;
      this.#storeIds.clear();
      const stores = rows.map((row) => {
        const store = { ...(JSON.parse(row.schema) as Omit<StoredSchema, 'keyGenerator'>), keyGenerator: row.keyGenerator };
        this.#storeIds.set(store.name, row.id);
        this.#learn(row.id, store.indexes);
        return store;
      });
      if (!this.#db.inTransaction) this.#fillEntries();
      return { version, stores };
    } catch (err) {
      throw storageError(err, this.path, 'read', err instanceof SyntaxError);
    }
  }

  /**
   * Starts the SQLite transaction an IndexedDB transaction runs in: a write takes the
   * file's write lock (waiting up to {@link BUSY_TIMEOUT_MS} for another process's write
   * to end), so writes of all processes are one after the other; a read takes a snapshot,
   * so what it reads stays one state of the file while other processes commit.
   * @throws ZeromemError STORAGE_FAILED (`locked` when the wait ran out)
   */
  begin(mode: 'read' | 'write', durable: boolean): void {
    try {
      if (mode === 'write') {
        this.#setSynchronous(durable ? 'FULL' : 'NORMAL');
        this.#db.exec('BEGIN IMMEDIATE');
      } else {
        this.#db.exec('BEGIN');
        this.#snapshot.get(); // a deferred transaction reads its snapshot at its first read
      }
    } catch (err) {
      throw storageError(err, this.path, mode === 'write' ? 'write' : 'read');
    }
  }

  /** Commits the transaction {@link begin} started (a read's only ends its snapshot); nothing was written if it throws. */
  end(): void {
    try {
      this.#db.exec('COMMIT');
    } catch (err) {
      this.rollback();
      throw storageError(err, this.path, 'write');
    }
  }

  /** Ends the transaction {@link begin} started without writing anything of it. */
  rollback(): void {
    if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
  }

  /** True once since another process committed to the file (each connection's own commits do not count). */
  changedElsewhere(): boolean {
    const version = this.#db.pragma('data_version', { simple: true }) as number;
    if (version === this.#dataVersion) return false;
    this.#dataVersion = version;
    return true;
  }

  #learn(id: number, indexes: StoredSchema['indexes']): void {
    this.#indexFields.set(id, indexFields(indexes));
    this.#indexShapes.set(id, indexes.map(indexShape));
  }

  /** Writes the index entries of stores that have none yet (a file of an earlier release), in one transaction, once. */
  #fillEntries(): void {
    const missing = this.#db.prepare('SELECT id FROM stores WHERE entries = 0').pluck().all() as number[];
    if (missing.length === 0) return;
    this.#db.transaction(() => {
      // Another process may have filled them meanwhile.
      if ((this.#db.prepare('SELECT count(*) FROM stores WHERE entries = 0').pluck().get() as number) === 0) return;
      for (const id of missing) {
        this.#db.prepare('DELETE FROM entries WHERE store = ?').run(id);
        const names = this.#indexFields.get(id);
        const select = 'SELECT key, ix, CASE WHEN ix IS NULL THEN json END, CASE WHEN ix IS NULL THEN bytes END FROM rows WHERE store = ?';
        for (const [key, ix, json, bytes] of this.#db.prepare(select).raw().all(id) as Array<[Buffer, string | Buffer | null, string | null, Buffer | null]>) {
          this.#writeEntries(id, key, ix === null ? decodeValue(json, bytes) : decodeIndexFields(names!, ix), 'insert');
        }
        this.#db.prepare('UPDATE stores SET entries = 1 WHERE id = ?').run(id);
      }
    }).immediate();
  }

  /** Inserts or deletes the index entries of one row (its primary key's blob, and its value or index fields). */
  #writeEntries(id: number, pk: Buffer, indexed: unknown, how: 'insert' | 'delete'): void {
    const shapes = this.#indexShapes.get(id);
    if (!shapes?.length) return;
    const statement = how === 'insert' ? this.#insertEntry : this.#deleteEntry;
    for (let ix = 0; ix < shapes.length; ix++) {
      for (const key of entryKeysOf(shapes[ix]!, indexed)) statement.run(id, ix, keyToBlob(encodeKey(key)), pk);
    }
  }

  /** Removes the index entries of a store's row as stored now (before it is replaced or deleted). */
  #deleteStoredEntries(id: number, pk: Buffer): void {
    if (!this.#indexShapes.get(id)?.length) return;
    const row = this.#readIndexed.get(id, pk) as [string | Buffer | null, string | null, Buffer | null] | undefined;
    if (!row) return;
    const [ix, json, bytes] = row;
    this.#writeEntries(id, pk, ix === null ? decodeValue(json, bytes) : decodeIndexFields(this.#indexFields.get(id)!, ix), 'delete');
  }

  /**
   * The entries of index `ix` (its position in the store's schema) in `range`, in the
   * index's order (by key, then primary key; `descending` the other way): each an index key
   * and the primary key it points to. Read page by page (the first page one entry, for a
   * lookup), so no query stays open while the engine works between entries.
   */
  *entries(store: string, ix: number, range: KeyBounds | undefined, descending: boolean): Generator<{ key: IDBValidKey; value: IDBValidKey }> {
    const id = this.#storeIds.get(store);
    if (id === undefined) return;
    const { where, params } = entryWhere(id, ix, range);
    const order = descending ? 'key DESC, pk DESC' : 'key, pk';
    const first = this.#statement(`SELECT key, pk FROM entries WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ?`).raw();
    const next = this.#statement(`SELECT key, pk FROM entries WHERE ${[...where, descending ? '(key, pk) < (?, ?)' : '(key, pk) > (?, ?)'].join(' AND ')} ORDER BY ${order} LIMIT ?`).raw();
    let after: [Buffer, Buffer] | undefined;
    for (let limit = 1; ; limit = Math.min(limit * 16, 4096)) {
      let page: Array<[Buffer, Buffer]>;
      try {
        page = (after ? next.all(...params, ...after, limit) : first.all(...params, limit)) as Array<[Buffer, Buffer]>;
      } catch (err) {
        throw storageError(err, this.path, 'read');
      }
      for (const [key, pk] of page) {
        let entry;
        try {
          entry = { key: decodeKey(blobToKey(key)), value: decodeKey(blobToKey(pk)) };
        } catch (err) {
          throw storageError(err, this.path, 'read', true);
        }
        yield entry;
      }
      if (page.length < limit) return;
      after = page.at(-1);
    }
  }

  /** How many entries index `ix` of a store has in `range`. */
  entryCount(store: string, ix: number, range: KeyBounds | undefined): number {
    const id = this.#storeIds.get(store);
    if (id === undefined) return 0;
    const { where, params } = entryWhere(id, ix, range);
    try {
      return this.#statement(`SELECT count(*) FROM entries WHERE ${where.join(' AND ')}`).pluck().get(...params) as number;
    } catch (err) {
      throw storageError(err, this.path, 'read');
    }
  }

  /** Every entry of index `ix` of a store in the index's order, each handed to `each` (its key, primary key, and the primary key's {@link encodeKey} string). */
  eachEntry(store: string, ix: number, each: (key: IDBValidKey, primaryKey: IDBValidKey, encodedPrimaryKey: string) => void): void {
    const id = this.#storeIds.get(store);
    if (id === undefined) return;
    try {
      for (const [key, pk] of this.#statement('SELECT key, pk FROM entries WHERE store = ? AND ix = ? ORDER BY key, pk').raw().iterate(id, ix) as Iterable<[Buffer, Buffer]>) {
        const encodedPk = blobToKey(pk, true);
        each(decodeKey(blobToKey(key, true)), decodeKey(encodedPk), encodedPk);
      }
    } catch (err) {
      throw storageError(err, this.path, 'read', true);
    }
  }

  #statement(sql: string): BetterSqlite3.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Every row of a store in key order, each key with its {@link encodeKey} string and row
   * id, handed to `each` one by one (nothing kept here). Only SQLite's (store, key) index is
   * read, no value; a file whose pages are damaged fails during this pass, before the
   * caller builds anything from it.
   */
  eachKey(store: string, each: (row: KeyRow) => void): void {
    const id = this.#storeIds.get(store);
    if (id === undefined) return;
    try {
      for (const [rowid, blob] of this.#statement('SELECT rowid, key FROM rows WHERE store = ? ORDER BY key').raw().iterate(id) as Iterable<[number, Buffer]>) {
        const encodedKey = blobToKey(blob, true);
        each({ encodedKey, key: decodeKey(encodedKey), rowid });
      }
    } catch (err) {
      throw storageError(err, this.path, 'read', true);
    }
  }

  /** The row id ({@link KeyRow.rowid}) of a store's row with this {@link encodeKey} key, if there is one. */
  rowidOf(store: string, encodedKey: string): number | undefined {
    const id = this.#storeIds.get(store);
    if (id === undefined) return undefined;
    try {
      return this.#rowidOf.get(id, keyToBlob(encodedKey)) as number | undefined;
    } catch (err) {
      throw storageError(err, this.path, 'read');
    }
  }

  /** How many rows of a store have keys in this range ({@link encodeKey} bounds; `undefined`: unbounded). */
  count(store: string, lower: string | undefined, lowerOpen: boolean, upper: string | undefined, upperOpen: boolean): number {
    const id = this.#storeIds.get(store);
    if (id === undefined) return 0;
    const where = ['store = ?'];
    const params: unknown[] = [id];
    if (lower !== undefined) {
      where.push(lowerOpen ? 'key > ?' : 'key >= ?');
      params.push(keyToBlob(lower));
    }
    if (upper !== undefined) {
      where.push(upperOpen ? 'key < ?' : 'key <= ?');
      params.push(keyToBlob(upper));
    }
    try {
      return this.#db.prepare(`SELECT count(*) FROM rows WHERE ${where.join(' AND ')}`).pluck().get(...params) as number;
    } catch (err) {
      throw storageError(err, this.path, 'read');
    }
  }

  /**
   * The value of the row `rowid` ({@link KeyRow.rowid}), decoded: what a record loaded
   * at open reads when it is first needed. Its bytes are only read (and checked) here.
   * @throws ZeromemError STORAGE_FAILED (`corrupt` when the row is missing or does not decode)
   */
  readValue(rowid: number): unknown {
    let row: [number, ...EncodedValue] | undefined;
    try {
      row = this.#readValue.get(rowid) as [number, ...EncodedValue] | undefined;
      if (row) return decodeRow(this.#indexFields.get(row[0]), row[1], row[2], row[3]);
    } catch (err) {
      throw storageError(err, this.path, 'read', row !== undefined);
    }
    throw storageError(new Error(`row ${rowid} is missing`), this.path, 'read', true);
  }

  /**
   * Writes one IndexedDB transaction's changes in one SQLite transaction; returns once it
   * is committed (and, with `durable`, synced to disk). Nothing is written if it throws.
   */
  commit(changes: StoreChanges[], durable: boolean): void {
    // Inside the transaction of begin() its level is set already (and cannot change).
    if (!this.#db.inTransaction) this.#setSynchronous(durable ? 'FULL' : 'NORMAL');
    try {
      this.#db.transaction(() => {
        for (const change of changes) {
          const id = this.#storeIds.get(change.store);
          if (id === undefined) throw new Error(`object store "${change.store}" is not in the file`);
          if (change.cleared) {
            this.#clear.run(id);
            this.#clearEntries(id);
          }
          for (const row of change.rows) {
            const key = keyToBlob(row.key);
            this.#deleteStoredEntries(id, key);
            if (row.value === undefined) this.#delete.run(id, key);
            else {
              this.#upsert.run(id, key, ...encodeRow(this.#indexFields.get(id), row.value));
              this.#writeEntries(id, key, row.value, 'insert');
            }
          }
          if (change.keyGenerator !== null) this.#setKeyGenerator.run(change.keyGenerator, id);
        }
      })();
    } catch (err) {
      throw storageError(err, this.path, 'write');
    }
  }

  #clearEntries(id: number): void {
    this.#statement('DELETE FROM entries WHERE store = ?').run(id);
  }

  /**
   * Replaces everything in the file (after a schema change): version, stores and all their
   * rows. The rows' values must not be read from this file ({@link readValue}) while it runs.
   */
  rewrite(version: number, stores: Array<{ schema: StoredSchema; rows: Iterable<StoredRow> }>): void {
    if (!this.#db.inTransaction) this.#setSynchronous('FULL');
    try {
      this.#db.transaction(() => {
        this.#db.exec('DELETE FROM rows; DELETE FROM entries; DELETE FROM stores;');
        this.#storeIds.clear();
        this.#indexFields.clear();
        this.#indexShapes.clear();
        const insertStore = this.#db.prepare('INSERT INTO stores (name, schema, keyGenerator, entries) VALUES (?, ?, ?, 1)');
        for (const { schema, rows } of stores) {
          const { keyGenerator, ...rest } = schema;
          const id = Number(insertStore.run(schema.name, JSON.stringify(rest), keyGenerator).lastInsertRowid);
          this.#storeIds.set(schema.name, id);
          this.#learn(id, schema.indexes);
          const fields = this.#indexFields.get(id);
          for (const row of rows) {
            const key = keyToBlob(encodeKey(row.key));
            this.#upsert.run(id, key, ...encodeRow(fields, row.value));
            this.#writeEntries(id, key, row.value, 'insert');
          }
        }
        this.#db.prepare("INSERT INTO meta (k, v) VALUES ('version', ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v").run(version);
      })();
    } catch (err) {
      this.#storeIds.clear();
      this.#indexFields.clear();
      this.#indexShapes.clear();
      for (const row of this.#db.prepare('SELECT id, name, schema FROM stores').all() as Array<{ id: number; name: string; schema: string }>) {
        this.#storeIds.set(row.name, row.id);
        this.#learn(row.id, (JSON.parse(row.schema) as StoredSchema).indexes);
      }
      throw storageError(err, this.path, 'write');
    }
  }

  /**
   * Copies the WAL into the database file and truncates it, so content deleted by a
   * commit (already zeroed in the database pages by `secure_delete`) leaves no older
   * copy in the WAL either.
   */
  checkpoint(): void {
    // It waits for other processes' readers to leave the WAL: briefly, a later checkpoint tries again.
    this.#db.pragma(`busy_timeout = ${CHECKPOINT_WAIT_MS}`);
    try {
      this.#db.pragma('wal_checkpoint(TRUNCATE)');
    } catch (err) {
      throw storageError(err, this.path, 'write');
    } finally {
      this.#db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  /** Closes the file. */
  close(): void {
    this.#db.close();
  }

  #setSynchronous(level: 'FULL' | 'NORMAL'): void {
    if (this.#synchronous === level) return;
    this.#db.pragma(`synchronous = ${level}`);
    this.#synchronous = level;
  }
}

/** The file's tables: rows, index entries, object stores and the version. */
const TABLES = `
  CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS stores (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, schema TEXT NOT NULL, keyGenerator REAL NOT NULL DEFAULT 1);
  CREATE TABLE IF NOT EXISTS rows (store INTEGER NOT NULL, key BLOB NOT NULL, ix, json TEXT, bytes BLOB, UNIQUE (store, key));
  CREATE TABLE IF NOT EXISTS entries (store INTEGER NOT NULL, ix INTEGER NOT NULL, key BLOB NOT NULL, pk BLOB NOT NULL, PRIMARY KEY (store, ix, key, pk)) WITHOUT ROWID;`;

/** The WHERE clause (and its parameters) of an index's entries in a key range. */
function entryWhere(id: number, ix: number, range: KeyBounds | undefined): { where: string[]; params: unknown[] } {
  const where = ['store = ?', 'ix = ?'];
  const params: unknown[] = [id, ix];
  if (range?.lower !== undefined) {
    where.push(range.lowerOpen ? 'key > ?' : 'key >= ?');
    params.push(keyToBlob(encodeKey(range.lower)));
  }
  if (range?.upper !== undefined) {
    where.push(range.upperOpen ? 'key < ?' : 'key <= ?');
    params.push(keyToBlob(encodeKey(range.upper)));
  }
  return { where, params };
}

