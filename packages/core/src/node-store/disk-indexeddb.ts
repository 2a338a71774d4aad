import { readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { IDBFactory as MemoryIDBFactory, IDBKeyRange as MemoryIDBKeyRange } from 'fake-indexeddb';
import { ZeromemError } from '../model/errors.ts';
import { defaultDirectory } from './default-directory.ts';
import type { RawConnection, RawDatabase, RawObjectStore, RawObjectStoreHandle, RawRecord, RawTransaction } from './fake-indexeddb-internals.ts';
import { indexWithoutExceptions } from './index-keys.ts';
import { encodeKey } from './key-codec.ts';
import { buildTreesBefore, buildTreesOnFirstUse, committedToFile, forgetBuiltTrees } from './lazy-trees.ts';
import { nameOfFile, storeFilePath } from './store-file.ts';
import { StorageFile, type KeyBounds, type RowChange, type StoreChanges, type StoredSchema } from './storage-file.ts';
import { StoredRecord, readStoredRecordsDirectly, type ReadValue } from './stored-record.ts';

/** An IndexedDB whose databases live in files on disk, as {@link diskIndexedDB} returns it. */
export interface DiskIndexedDB {
  indexedDB: IDBFactory;
  IDBKeyRange: typeof IDBKeyRange;
}

const byDirectory = new Map<string, DiskIndexedDB>();

/**
 * IndexedDB for Node that keeps its databases on disk: one SQLite file per database in
 * `directory` (default: `ZEROMEM_HOME`, else `~/.zeromem`). Each database is held in
 * memory by fake-indexeddb's engine while it is open and every committed transaction is
 * written to its file before the transaction reports `complete`. Many processes can have a
 * database open at once: each transaction runs in a SQLite transaction of the file (writes
 * one after the other, across processes), and what another process committed is read from
 * the file again. In one process, every opener of a directory shares the same instance,
 * like tabs of one browser profile.
 *
 * `openMemory` in Node uses it already; pass it to other IndexedDB users of the same
 * store, e.g. `shareNamespace(memory, ns, { ...diskIndexedDB(), url, token })`.
 */
export function diskIndexedDB(directory: string = defaultDirectory()): DiskIndexedDB {
  const absolute = resolve(directory);
  let disk = byDirectory.get(absolute);
  if (!disk) {
    disk = { indexedDB: new DiskIDBFactory(absolute) as unknown as IDBFactory, IDBKeyRange: MemoryIDBKeyRange };
    byDirectory.set(absolute, disk);
  }
  return disk;
}

/** Changed primary keys of one object store since its last commit. */
interface StoreTracker {
  cleared: boolean;
  keys: IDBValidKey[];
  /** Puts back the record tree's mutators as they were before the tracker wrapped them. */
  unwrap(): void;
}

/** One open database: its file, its in-memory engine (read from the file again when another process wrote), and who uses it. */
class Session {
  readonly file: StorageFile;
  /** A factory of its own, so closing the session drops exactly this database from memory. */
  readonly engine = new MemoryIDBFactory();
  /** Connections open or being opened; the file closes when the last one is gone. */
  users = 0;
  /** Set when loading the file into memory failed: nothing may then be written over it. */
  failed: ZeromemError | undefined;
  readonly #trackers = new WeakMap<RawObjectStore, StoreTracker>();
  /** The file's version when this process loaded it (`undefined`: a new file). */
  #loadedVersion: number | undefined;
  /** The SQLite transaction this process's connection has open, and the IndexedDB transactions running in it. */
  #held: { mode: 'read' | 'write'; transactions: Set<RawTransaction> } | undefined;

  constructor(directory: string, name: string) {
    this.file = new StorageFile(directory, name);
    try {
      this.#load(name);
    } catch (err) {
      this.file.close();
      throw err;
    }
  }

  /**
   * Creates the database in memory from the file's schema, each store's trees left to be
   * built from the file on first use (lazy-trees.ts) and values to be read when first
   * needed ({@link StoredRecord}). Damage to the file's pages is found by the read that
   * meets it (a coded error, nothing written).
   */
  #load(name: string): void {
    const schema = this.file.readSchema();
    if (!schema) return;
    this.#loadedVersion = schema.version;
    const request = this.engine.open(name, schema.version);
    request.onupgradeneeded = () => {
      const db = request.result;
      for (const store of schema.stores) {
        const handle = db.createObjectStore(store.name, { keyPath: store.keyPath, autoIncrement: store.autoIncrement }) as RawObjectStoreHandle;
        // Created on the empty store: their initialization (a request) then has nothing to do.
        for (const index of store.indexes) handle.createIndex(index.name, index.keyPath, { multiEntry: index.multiEntry, unique: index.unique });
        // After those requests, still inside this upgrade: the trees, filled directly.
        handle.count().onsuccess = () => this.#readFromFile(handle._rawObjectStore, store);
      }
    };
    request.onsuccess = () => request.result.close();
    request.onerror = () => {
      this.failed = new ZeromemError('STORAGE_FAILED', `The memory file could not be loaded: ${String(request.error)} (${this.file.path})`, {
        cause: request.error,
        storage: { reason: 'corrupt', path: this.file.path },
      });
    };
  }

  /** Makes a store (created empty in memory) the file's: its trees built from the file on first use, values read when needed. */
  #readFromFile(raw: RawObjectStore, store: StoredSchema): void {
    // The notes of changed keys wrap what reads from the file (a store created in this
    // process's upgrade has them already): its changes by key must still be noted.
    const tracked = this.#trackers.get(raw);
    tracked?.unwrap();
    this.#trackers.delete(raw);
    const read: ReadValue = (rowid) => this.file.readValue(rowid);
    const bounds = (range: KeyBounds | undefined) =>
      [range?.lower === undefined ? undefined : encodeKey(range.lower), range?.lowerOpen ?? false, range?.upper === undefined ? undefined : encodeKey(range.upper), range?.upperOpen ?? false] as const;
    buildTreesOnFirstUse(raw, store, {
      records: () => {
        const records: StoredRecord[] = [];
        this.file.eachKey(store.name, (row) => records.push(new StoredRecord(row.key, row.rowid, read)));
        return records;
      },
      record: (key) => {
        const rowid = this.file.rowidOf(store.name, encodeKey(key));
        return rowid === undefined ? undefined : new StoredRecord(key, rowid, read);
      },
      count: (range) => this.file.count(store.name, ...bounds(range)),
      entries: (index, range, descending) => this.file.entries(store.name, index, range, descending),
      eachEntry: (index, each) => this.file.eachEntry(store.name, index, each),
      entryCount: (index, range) => this.file.entryCount(store.name, index, range),
    });
    if (raw.keyGenerator) raw.keyGenerator.num = store.keyGenerator;
    readStoredRecordsDirectly(raw);
    if (tracked) this.#track(raw);
  }

  /**
   * Another process committed to the file since this one last looked (checked at the start
   * of each transaction, inside its SQLite transaction): every tree built from the file is
   * dropped, to be built again on first use, and key generators continue from the file's
   * numbers (the audit log's sequence is one for all processes).
   * @throws ZeromemError STORAGE_FAILED (`locked`) when another release changed the file's format meanwhile
   */
  #reload(db: RawDatabase, version: number): void {
    const schema = this.file.readSchema();
    if (schema?.version !== version) {
      throw new ZeromemError(
        'STORAGE_FAILED',
        `Another process changed this memory's format (to version ${schema?.version ?? 'none'}, this process reads version ${version}), probably a newer zeromem: this process cannot share it any more; restart it with the same zeromem version (${this.file.path})`,
        { storage: { reason: 'locked', path: this.file.path } },
      );
    }
    for (const store of schema.stores) {
      const raw = db.rawObjectStores.get(store.name);
      if (!raw) continue;
      if (!forgetBuiltTrees(raw)) this.#readFromFile(raw, store);
      else if (raw.keyGenerator) raw.keyGenerator.num = store.keyGenerator;
    }
  }

  /**
   * Makes a connection's transactions run in SQLite transactions of the file (reads on a
   * snapshot, writes holding the write lock) and write their changes to the file before
   * they complete. A write's scope is every object store: one write at a time in this
   * process, as across processes, and never a read beside it (the connection has one
   * SQLite transaction at a time; reads share one snapshot).
   */
  attach(connection: RawConnection): void {
    const transaction = connection.transaction.bind(connection);
    connection.transaction = ((storeNames: string | string[], mode?: IDBTransactionMode, options?: IDBTransactionOptions) => {
      const scope = mode === 'readwrite' ? Array.from(connection.objectStoreNames) : storeNames;
      const trans = transaction(scope, mode, options) as unknown as RawTransaction;
      this.#hook(trans, connection._rawDatabase);
      return trans;
    }) as IDBDatabase['transaction'];
  }

  /** The upgrade transaction of an open: it may create or delete stores, so its commit rewrites the file. */
  attachUpgrade(trans: RawTransaction, connection: RawConnection): void {
    this.#hook(trans, connection._rawDatabase);
  }

  #hook(trans: RawTransaction, db: RawDatabase): void {
    if (trans.mode === 'readwrite') for (const name of trans._scope) this.#track(db.rawObjectStores.get(name)!);
    if (trans.mode !== 'readonly') for (const name of trans._scope) for (const index of db.rawObjectStores.get(name)!.rawIndexes.values()) indexWithoutExceptions(index);
    const { _start: start, _markFinished: markFinished } = trans;
    const session = this;
    // fake-indexeddb calls _start first when the transaction may run: its SQLite
    // transaction begins there. It then runs _start until no request is left and then
    // commits: the file is written right before that, and a failure aborts the transaction
    // instead (its changes are rolled back in memory, and the caller gets the coded error).
    trans._start = function (this: RawTransaction) {
      if (!this._started) {
        try {
          session.#begin(this, db);
        } catch (err) {
          // Its requests fail with the coded error (the first one's aborts the transaction), so the caller gets it.
          for (const request of this._requests) {
            request.operation = () => {
              throw err;
            };
          }
        }
      }
      if (this.mode !== 'readonly' && this._state !== 'finished' && !this.error && this._requests.every((r) => r.request.readyState === 'done')) {
        try {
          session.#persist(this, db);
        } catch (err) {
          this._abort('UnknownError');
          (this as { error: unknown }).error = err;
          return;
        }
      }
      start.call(this);
    };
    trans._markFinished = function (this: RawTransaction) {
      session.#end(this);
      markFinished.call(this);
    };
  }

  /** Starts `trans`'s SQLite transaction (or joins the snapshot of reads running now), and catches up with other processes' commits. */
  #begin(trans: RawTransaction, db: RawDatabase): void {
    if (this.#held?.mode === 'read' && trans.mode === 'readonly') {
      this.#held.transactions.add(trans);
      return;
    }
    if (this.#held) throw new Error(`a ${trans.mode} transaction started while a ${this.#held.mode} holds the file`); // excluded by the write scope (attach)
    this.file.begin(trans.mode === 'readonly' ? 'read' : 'write', trans.durability !== 'relaxed');
    this.#held = { mode: trans.mode === 'readonly' ? 'read' : 'write', transactions: new Set([trans]) };
    try {
      // An upgrade finds out in its commit whether another process did the same upgrade first.
      if (this.file.changedElsewhere() && trans.mode !== 'versionchange') this.#reload(db, trans.db.version);
      // A schema change reads every tree, a write the unique indexes it checks: built here, so
      // that a failing read of the file fails the start, not a rollback (lazy-trees.ts).
      if (trans.mode === 'versionchange') for (const store of db.rawObjectStores.values()) buildTreesBefore(store, 'all');
      else if (trans.mode === 'readwrite') for (const name of trans._scope) buildTreesBefore(db.rawObjectStores.get(name)!, 'unique');
    } catch (err) {
      this.#end(trans);
      throw err;
    }
  }

  /** `trans` is finished: the last read ends the snapshot, a write that did not commit is rolled back. */
  #end(trans: RawTransaction): void {
    const held = this.#held;
    if (!held?.transactions.delete(trans) || held.transactions.size > 0) return;
    this.#held = undefined;
    if (held.mode === 'read') {
      try {
        this.file.end();
      } catch {
        // A snapshot that fails to end wrote nothing; the next begin starts a new one.
      }
    } else this.file.rollback();
  }

  /** Records the primary keys an object store's changes touch, by wrapping its record tree's three mutators. */
  #track(store: RawObjectStore): void {
    if (this.#trackers.has(store)) return;
    const records = store.records;
    const { put, delete: remove, clear } = records;
    const tracker: StoreTracker = { cleared: false, keys: [], unwrap: () => Object.assign(records, { put, delete: remove, clear }) };
    this.#trackers.set(store, tracker);
    records.put = (record: RawRecord, noOverwrite?: boolean) => {
      const replaced = put.call(records, record, noOverwrite);
      tracker.keys.push(record.key);
      return replaced;
    };
    records.delete = (key: unknown) => {
      const deleted = remove.call(records, key);
      for (const record of deleted) tracker.keys.push(record.key);
      return deleted;
    };
    records.clear = () => {
      tracker.cleared = true;
      tracker.keys = [];
      return clear.call(records);
    };
  }

  #persist(trans: RawTransaction, db: RawDatabase): void {
    if (this.failed) throw this.failed;
    if (trans.mode === 'versionchange') {
      this.#rewrite(trans, db);
      return;
    }
    const changes: StoreChanges[] = [];
    let deleted = false;
    for (const name of trans._scope) {
      const store = db.rawObjectStores.get(name)!;
      const tracker = this.#trackers.get(store)!;
      if (!tracker.cleared && tracker.keys.length === 0) continue;
      // Each touched key is written with its value now: later changes in the same
      // transaction, and rolled-back ones, are already in it.
      const rows = new Map<string, RowChange>();
      for (const key of tracker.keys) {
        const encoded = encodeKey(key);
        const value = store.records.get(key)?.value;
        if (value === undefined) deleted = true;
        rows.set(encoded, { key: encoded, value });
      }
      deleted ||= tracker.cleared;
      changes.push({ store: name, cleared: tracker.cleared, rows: [...rows.values()], keyGenerator: store.keyGenerator?.num ?? null });
      tracker.cleared = false;
      tracker.keys = [];
    }
    if (changes.length > 0) this.file.commit(changes, trans.durability !== 'relaxed');
    this.#commit(trans);
    for (const change of changes) committedToFile(db.rawObjectStores.get(change.store)!);
    // A deletion's old bytes are zeroed in the database pages (secure_delete) but older
    // copies of those pages are still in the WAL until it is checkpointed and truncated.
    if (deleted) this.#checkpoint();
  }

  /** Commits `trans`'s SQLite transaction (synced unless relaxed): its changes are in the file now, and the write lock is free. */
  #commit(trans: RawTransaction): void {
    this.file.end();
    this.#held?.transactions.delete(trans);
    this.#held = undefined;
  }

  #rewrite(trans: RawTransaction, db: RawDatabase): void {
    const stores = [...db.rawObjectStores.values()].map((store) => {
      const tracker = this.#trackers.get(store);
      if (tracker) Object.assign(tracker, { cleared: false, keys: [] });
      const schema: StoredSchema = {
        name: store.name,
        keyPath: store.keyPath,
        autoIncrement: store.autoIncrement,
        keyGenerator: store.keyGenerator?.num ?? 0,
        indexes: [...store.rawIndexes.values()].map(({ name, keyPath, multiEntry, unique }) => ({ name, keyPath, multiEntry, unique })),
      };
      // Every value read into memory first: the rewrite deletes the rows they would be read from.
      return { schema, rows: Array.from(store.records.values(), (record) => ({ key: record.key, value: record.value })) };
    });
    const stored = this.file.readSchema();
    if (stored?.version === trans.db.version && this.#loadedVersion === undefined) {
      // Another process created this store meanwhile, with the same schema (versions are
      // appended, never edited): its rows stay, and this process reads them from the file.
      this.#commit(trans);
      this.#loadedVersion = trans.db.version;
      this.#reload(db, trans.db.version);
      return;
    }
    if (stored !== undefined && stored.version !== this.#loadedVersion) {
      throw new ZeromemError('STORAGE_FAILED', `Another process upgraded this memory's format while this process did (${this.file.path}); open it again`, {
        storage: { reason: 'locked', path: this.file.path },
      });
    }
    this.file.rewrite(trans.db.version, stores);
    this.#commit(trans);
    this.#loadedVersion = trans.db.version;
    for (const store of db.rawObjectStores.values()) committedToFile(store);
    this.#checkpoint();
  }

  #checkpoint(): void {
    try {
      this.file.checkpoint();
    } catch {
      // The commit itself is durable; the WAL is truncated by the next checkpoint that
      // succeeds (every later deletion and close try again).
    }
  }
}

/** The IndexedDB factory of {@link diskIndexedDB}: fake-indexeddb's engine per database, persisted by {@link Session}. */
class DiskIDBFactory {
  readonly #directory: string;
  readonly #sessions = new Map<string, Session>();

  constructor(directory: string) {
    this.#directory = directory;
  }

  /**
   * Opens a database, loading it from its file first if this process does not have it
   * open yet. Throws the file's coded error (locked, corrupt, read-only, ...) at once.
   */
  open(name: string, version?: number): IDBOpenDBRequest {
    const session = this.#session(name);
    session.users++;
    let request: IDBOpenDBRequest;
    try {
      request = session.engine.open(name, version);
    } catch (err) {
      this.#release(name, session);
      throw err;
    }
    request.addEventListener('upgradeneeded', () => session.attachUpgrade(request.transaction as unknown as RawTransaction, request.result as RawConnection));
    request.addEventListener('success', () => {
      const connection = request.result as RawConnection;
      session.attach(connection);
      const close = connection.close.bind(connection);
      let closed = false;
      connection.close = () => {
        close();
        if (closed) return;
        closed = true;
        this.#release(name, session, connection._rawDatabase);
      };
    });
    request.addEventListener('error', () => this.#release(name, session));
    return request;
  }

  deleteDatabase(name: string): IDBOpenDBRequest {
    const open = this.#sessions.get(name);
    const request = (open?.engine ?? new MemoryIDBFactory()).deleteDatabase(name);
    request.addEventListener('success', () => {
      const session = this.#sessions.get(name);
      if (session && session.users > 0) return; // opened again meanwhile: it is a new database now
      if (session) {
        session.file.close();
        this.#sessions.delete(name);
      }
      const path = storeFilePath(this.#directory, name);
      for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true });
    });
    return request;
  }

  /** The databases in the directory. */
  async databases(): Promise<IDBDatabaseInfo[]> {
    let files: string[];
    try {
      files = readdirSync(this.#directory);
    } catch {
      return [];
    }
    return files.flatMap((file) => {
      const name = nameOfFile(file);
      return name === undefined ? [] : [{ name, version: 0 }];
    });
  }

  cmp(first: unknown, second: unknown): number {
    return MemoryIDBFactory.prototype.cmp(first, second);
  }

  #session(name: string): Session {
    let session = this.#sessions.get(name);
    if (!session) {
      session = new Session(this.#directory, name);
      this.#sessions.set(name, session);
    }
    return session;
  }

  /** One user fewer; the last one closes the file once the database's transactions are finished. */
  #release(name: string, session: Session, db?: RawDatabase): void {
    session.users--;
    const closeWhenIdle = () => {
      if (session.users > 0 || this.#sessions.get(name) !== session) return;
      // Writes still to be committed need the file, and so do reads still to run (values
      // and trees are read from it); a read transaction with nothing left to run does not.
      const needsFile = (trans: RawTransaction) =>
        trans._state !== 'finished' && (trans.mode !== 'readonly' || trans._requests.some((r) => r.request.readyState !== 'done'));
      if (db && db.transactions.some(needsFile)) {
        setImmediate(closeWhenIdle);
        return;
      }
      this.#sessions.delete(name);
      session.file.close();
    };
    // At once when nothing runs (a memory's close() then leaves the file closed and unlocked).
    closeWhenIdle();
  }
}
