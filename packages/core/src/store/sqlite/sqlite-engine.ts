/**
 * The storage port (store/port.ts) on a SQLite file: Node's engine. One file per memory
 * (`<directory>/<name>.sqlite`, WAL), shared by every process that opens it.
 *
 * Isolation. better-sqlite3 is synchronous and the port's transaction functions are
 * async, so a transaction spans awaits while other work of this process runs:
 * - Writes go through one writer connection, one at a time in this process (a queue), in
 *   `BEGIN IMMEDIATE` ... `COMMIT`: across processes SQLite's write lock orders them; while
 *   another process holds it, the wait is asynchronous (sqlite-connection.ts). Writes that
 *   queued up while one ran are committed together (group commit: a savepoint each, one
 *   sync of the file for all; see {@link SqliteStore.write}).
 * - Reads run on reader connections of their own (a small pool), each in a deferred
 *   transaction whose snapshot is taken at its start: a read never sees a write that has
 *   not committed (this process's running one included), and sees every write committed
 *   before it began, of any process.
 * - Durability `default`, `strict`: a write is acknowledged once its commit is synced to
 *   disk, by a sync of the WAL off the event loop (sqlite-wal-sync.ts; the commit itself is
 *   written at `synchronous=NORMAL`, so the loop goes on meanwhile); `relaxed` never syncs
 *   a commit: a process crash loses nothing acknowledged, a power cut may lose the last
 *   commits.
 *
 * Many processes. Reads read the file, so another process's commit is seen by the next
 * read. `observe` and `onAuditWrites` learn of other processes' commits by polling
 * `PRAGMA data_version` (a read of shared memory) while anyone listens (sqlite-changes.ts).
 */
import { constants } from 'node:buffer';
import { ZeromemError } from '../../public/errors.ts';
import type { ReadTransaction, StoragePort, WriteOptions, WriteTransaction } from '../port.ts';
import { ChangeFeed } from './sqlite-changes.ts';
import { Connection, beginImmediate, type Synchronous } from './sqlite-connection.ts';
import { syncDocumentsFile } from './legacy/sync-documents.ts';
import { changedCompanion, checkWalNotLost, companionError, companionsOf, dropStaleIndex, type Companions } from './sqlite-companions.ts';
import { checkFormat, checkHeader, openFormat } from './sqlite-format.ts';
import type { MigrationProgress } from '../../public/node-options.ts';
import { NEW_FILE } from './sqlite-schema.ts';
import { SqliteReadTransaction, SqliteWriteTransaction, watchTextReplacements, type SnapshotLimits } from './sqlite-transactions.ts';
import { SNAPSHOT_PIECE_BYTES } from './snapshot-pieces.ts';
import { keepReserve, releaseReserve } from './sqlite-reserve.ts';
import { WalSync } from './sqlite-wal-sync.ts';
import { CHECKPOINT_WAIT_MS, prepareStoreFile, storageError } from './sqlite-file.ts';
import type BetterSqlite3 from 'better-sqlite3';

/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /** See {@link Synchronous}: `relaxed` does not sync commits; the others do. */
  durability?: 'default' | 'strict' | 'relaxed';
  /**
   * Reads check each record's content against its content hash (sqlite-transactions.ts
   * `checkedRecordOf`). Default true; `false` only for tests of the port that store rows
   * with made-up hashes.
   */
  checkContentHashes?: boolean;
  /**
   * The largest index snapshot stored, in bytes, all its pieces together (default
   * {@link MAX_SNAPSHOT_BYTES}). A larger snapshot is not stored and the namespace's stale one
   * is deleted: a snapshot only spares the next open a rebuild from the rows, never worth a
   * failed write or close. Lower only in tests.
   */
  maxSnapshotBytes?: number;
  /** The largest piece of an index snapshot's body in one row (default {@link SNAPSHOT_PIECE_BYTES}, snapshot-pieces.ts). Lower only in tests. */
  snapshotPieceBytes?: number;
  /** Hears the progress of a migration of the file from an earlier release: this process's, or another's it waits for. */
  onMigration?: (progress: MigrationProgress) => void;
}

/**
 * The largest body Node makes one buffer of (4 GiB in Node 20, ~5M memories with 128-d
 * vectors): the body is encoded whole before it is cut into pieces (snapshot-pieces.ts).
 * Before format 1005 it was 1 GB, taken for SQLite's limit; better-sqlite3 binds at most
 * ~512 MiB, so a body between the two failed its write (a 1M namespace's 820 MB).
 */
export const MAX_SNAPSHOT_BYTES = constants.MAX_LENGTH;

/** A write waiting its turn. */
interface PendingWrite {
  fn: (tx: WriteTransaction) => Promise<unknown>;
  /** {@link WriteOptions.durable}. */
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** Most writes committed together in one group ({@link SqliteStore.write}). */
const MAX_GROUP = 64;

/** Reader connections kept open when idle (more are opened while more reads run at once): enough for a busy `zeromem serve`, so reads do not open and close connections under load. */
const IDLE_READERS = 32;
/** How long a reader waits (blocking) for SQLite's brief locks (a WAL reset by another process's checkpoint). */
const READER_BUSY_MS = 1000;

/**
 * Opens (creating, or migrating from an earlier release's format, as needed) the store
 * `name` in `directory`.
 * @throws ZeromemError INVALID_INPUT (a name too long for a file), STORAGE_FAILED (`corrupt`, `read-only`, `locked` for another format, `unavailable`), QUOTA_EXCEEDED, UNSUPPORTED_ENVIRONMENT
 */
export async function openSqliteStore(directory: string, name: string, options: SqliteStoreOptions = {}): Promise<SqliteStore> {
  const { path, Database } = prepareStoreFile(directory, name, NEW_FILE);
  const synchronous: Synchronous = options.durability === 'relaxed' ? 'NORMAL' : 'FULL';
  let writer: Connection | undefined;
  try {
    checkHeader(path);
    checkWalNotLost(path);
    writer = new Connection(Database, path, synchronous, 0);
    await openFormat(writer, { Database, syncDocuments: syncDocumentsFile(directory, name) }, options.onMigration);
    watchTextReplacements(writer);
    keepReserve(path);
    const walSync = synchronous === 'FULL' ? walSyncOf(writer) : undefined;
    return new SqliteStore(name, Database, writer, synchronous, options.checkContentHashes ?? true, { maxBytes: options.maxSnapshotBytes ?? MAX_SNAPSHOT_BYTES, pieceBytes: options.snapshotPieceBytes ?? SNAPSHOT_PIECE_BYTES }, walSync);
  } catch (err) {
    writer?.close();
    throw storageError(err, path, 'open');
  }
}

/**
 * The syncs of the writer's WAL off the event loop (sqlite-wal-sync.ts), the writer then
 * committing at `NORMAL`; `undefined` (the writer keeps syncing each commit at `FULL`) when
 * the store has no `-wal` file to sync, which WAL mode creates at open.
 */
function walSyncOf(writer: Connection): WalSync | undefined {
  let walSync: WalSync;
  try {
    walSync = new WalSync(`${writer.path}-wal`);
  } catch {
    return undefined;
  }
  writer.db.pragma('synchronous = NORMAL');
  return walSync;
}

/** A store on a SQLite file, see the module comment. */
export class SqliteStore implements StoragePort {
  readonly name: string;
  readonly #Database: typeof BetterSqlite3;
  readonly #writer: Connection;
  readonly #synchronous: Synchronous;
  readonly #idleReaders: Connection[] = [];
  readonly #changes: ChangeFeed;
  /** This process's writes waiting for the writer connection, in the order they were asked for. */
  readonly #pending: PendingWrite[] = [];
  #draining = false;
  /** Transactions running (reads and writes); the file closes when the last one ends after {@link close}. */
  #running = 0;
  #closed = false;
  /** Set once damage was found ({@link #failure}) or the WAL or its index was removed ({@link #checkCompanions}): every later write gets it. */
  #refusal: ZeromemError | undefined;
  /** The `-wal` and `-shm` files as they were at open (sqlite-companions.ts). */
  readonly #companions: Companions | undefined;
  /** The `-shm` file was replaced: this process's connections hold an index of the WAL others no longer use ({@link #closeFile}). */
  #staleIndex = false;
  readonly #checkContentHashes: boolean;
  readonly #snapshotLimits: SnapshotLimits;
  /** Durable writes wait for it after their commit (`undefined`: each commit syncs, or none does when relaxed). */
  readonly #walSync: WalSync | undefined;

  constructor(name: string, Database: typeof BetterSqlite3, writer: Connection, synchronous: Synchronous, checkContentHashes: boolean, snapshotLimits: SnapshotLimits, walSync?: WalSync) {
    this.name = name;
    this.#walSync = walSync;
    this.#checkContentHashes = checkContentHashes;
    this.#snapshotLimits = snapshotLimits;
    this.#Database = Database;
    this.#writer = writer;
    this.#synchronous = synchronous;
    this.#changes = new ChangeFeed(writer);
    this.#companions = companionsOf(writer.path);
  }

  /** The store file's path. */
  get path(): string {
    return this.#writer.path;
  }

  async read<T>(fn: (tx: ReadTransaction) => Promise<T>): Promise<T> {
    if (this.#closed) throw closedError();
    this.#running++;
    let reader: Connection | undefined;
    let tx: SqliteReadTransaction | undefined;
    let failed = false;
    /** The connection may be unusable (a storage failure, or its transaction would not end): closed, not kept. */
    let broken = false;
    try {
      reader = this.#idleReaders.pop() ?? new Connection(this.#Database, this.path, this.#synchronous, READER_BUSY_MS);
      reader.db.exec('BEGIN');
      // A deferred transaction takes its snapshot at its first read: now, not at the caller's first await.
      reader.pluck("SELECT v FROM meta WHERE k = 'version'").get();
      tx = new SqliteReadTransaction(reader, this.#checkContentHashes);
      return await fn(tx);
    } catch (err) {
      failed = true;
      const failure = this.#failure(err, 'read');
      broken = failure.code === 'STORAGE_FAILED' || failure.code === 'QUOTA_EXCEEDED';
      throw failure;
    } finally {
      tx?.end();
      // Ending the transaction must neither replace the read's own error nor leave the connection in it (close() would leave it open).
      if (reader && !endRead(reader, failed)) broken = true;
      if (reader && !broken && !this.#closed && this.#idleReaders.length < IDLE_READERS) this.#idleReaders.push(reader);
      else reader?.close();
      this.#ended();
    }
  }

  write<T>(fn: (tx: WriteTransaction) => Promise<T>, options?: WriteOptions): Promise<T> {
    if (this.#closed) return Promise.reject(closedError());
    this.#running++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ fn: fn as PendingWrite['fn'], durable: options?.durable !== false, resolve: resolve as PendingWrite['resolve'], reject });
      void this.#drain();
    }).finally(() => this.#ended());
  }

  /** Runs the waiting writes, group after group, until none is left. */
  async #drain(): Promise<void> {
    if (this.#draining) return;
    this.#draining = true;
    try {
      while (this.#pending.length > 0) await this.#commitGroup(this.#pending.splice(0, MAX_GROUP));
    } finally {
      this.#draining = false;
    }
  }

  /**
   * Group commit: the writes that waited while the last group ran share one SQLite
   * transaction (one sync of the file), each in a savepoint of its own, one after the other
   * in the order they were asked for. A write whose function fails rolls back only its
   * savepoint and gets its error; the others are acknowledged once the transaction is committed.
   * `reserve`: the group runs again on the space of the reserve (see {@link #full}).
   * With a {@link WalSync} every commit is written unsynced and only the durable writes
   * wait for the WAL's sync before they are acknowledged (see {@link #acknowledge}), while
   * the next group already runs. Without one (no `-wal` file at open), a group of writes
   * that are all not `durable` commits without syncing the file (`synchronous=NORMAL` for
   * that commit: SQLite allows the change only outside a transaction); any durable write in
   * the group syncs it all.
   */
  async #commitGroup(group: PendingWrite[], reserve = false): Promise<void> {
    const relaxed = !this.#walSync && this.#synchronous === 'FULL' && group.every((job) => !job.durable);
    if (!relaxed) return this.#commitGroupNow(group, reserve);
    const db = this.#writer.db;
    db.pragma('synchronous = NORMAL');
    try {
      await this.#commitGroupNow(group, reserve);
    } finally {
      if (db.open) db.pragma('synchronous = FULL');
    }
  }

  async #commitGroupNow(group: PendingWrite[], reserve: boolean): Promise<void> {
    const db = this.#writer.db;
    const fail = (jobs: PendingWrite[], err: unknown) => {
      for (const job of jobs) job.reject(this.#failure(err, 'write'));
    };
    if (this.#refusal) return fail(group, this.#refusal);
    try {
      await beginImmediate(this.#writer);
      checkFormat(this.#writer);
      this.#checkCompanions();
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK');
      fail(group, err);
      return;
    }
    const alone = group.length === 1;
    const done: Array<{ job: PendingWrite; result: unknown; tx: SqliteWriteTransaction }> = [];
    const effects = { audited: false, deleted: false };
    for (const [i, job] of group.entries()) {
      const tx = new SqliteWriteTransaction(this.#writer, false, this.#snapshotLimits);
      try {
        if (!alone) db.exec('SAVEPOINT verb');
        const result = await job.fn(tx);
        tx.end();
        if (!alone) db.exec('RELEASE verb');
        done.push({ job, result, tx });
        effects.audited ||= tx.effects.audited;
        effects.deleted ||= tx.effects.deleted;
      } catch (err) {
        tx.end();
        if (isDiskFull(err)) {
          if (db.inTransaction) db.exec('ROLLBACK');
          return this.#full(err, [...done.map((d) => ({ job: d.job, tx: d.tx })), { job, tx }], group.slice(i + 1), reserve);
        }
        job.reject(this.#failure(err, 'write'));
        // SQLite ends the whole transaction on some failures: then nothing of the group is written.
        if (alone || !db.inTransaction) {
          if (db.inTransaction) db.exec('ROLLBACK');
          fail([...done.map((d) => d.job), ...group.slice(i + 1)], err);
          return;
        }
        db.exec('ROLLBACK TO verb; RELEASE verb');
      }
    }
    try {
      db.exec('COMMIT');
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK');
      if (isDiskFull(err)) return this.#full(err, done, [], reserve);
      fail(done.map((d) => d.job), err);
      return;
    }
    if (effects.deleted) {
      this.#checkpoint();
      keepReserve(this.path);
    }
    if (done.length > 0) this.#changes.committed(effects.audited);
    this.#acknowledge(done);
  }

  /**
   * Acknowledges committed writes: at once when not durable or without a {@link WalSync},
   * else once the WAL's sync after the commit is done. A failed sync rejects them with
   * STORAGE_FAILED and refuses every later write: what reached the disk is unknown (Linux
   * may drop the pages that failed to write and report the error once), so nothing more
   * is acknowledged into this file by this process.
   */
  #acknowledge(done: Array<{ job: PendingWrite; result: unknown }>): void {
    const walSync = this.#walSync;
    const durable: typeof done = [];
    for (const write of done) {
      if (walSync && write.job.durable) durable.push(write);
      else write.job.resolve(write.result);
    }
    if (!walSync || durable.length === 0) return;
    walSync.synced().then(
      () => {
        for (const { job, result } of durable) job.resolve(result);
      },
      (err: unknown) => {
        this.#refusal ??= new ZeromemError(
          'STORAGE_FAILED',
          `Syncing this memory's file to disk failed, so its last writes may not be on disk and it takes no more writes (${this.path}: ${err instanceof Error ? err.message : String(err)}). Close the memory and open it again.`,
          { cause: err, storage: { reason: 'unavailable', path: this.path } },
        );
        for (const { job } of durable) job.reject(this.#refusal);
      },
    );
  }

  /**
   * A group failed because the disk is full (nothing of it was written). Its writes that
   * delete records run again on the reserve's space (sqlite-reserve.ts): the reserve is
   * given back to the file system, the WAL checkpointed and truncated, then they are
   * committed as a group of their own. The writes that only add get QUOTA_EXCEEDED; those
   * that had not run yet wait for the next group.
   */
  async #full(err: unknown, attempted: Array<{ job: PendingWrite; tx: SqliteWriteTransaction }>, notRun: PendingWrite[], reserve: boolean): Promise<void> {
    this.#pending.unshift(...notRun);
    const erasures = reserve ? [] : attempted.filter(({ tx }) => tx.effects.deleting).map(({ job }) => job);
    for (const { job, tx } of attempted) {
      if (erasures.includes(job)) continue;
      job.reject(reserve && tx.effects.deleting ? reserveTooSmall(this.path, err) : this.#failure(err, 'write'));
    }
    if (erasures.length === 0) return;
    releaseReserve(this.path);
    this.#checkpoint();
    await this.#commitGroup(erasures, true);
  }

  /**
   * Inside the write transaction, before anything is written: the `-wal` and `-shm` files
   * are still those of the open (sqlite-companions.ts). When the WAL was removed, this
   * process's connections still hold it open: a checkpoint copies its commits into the
   * store file, so what was acknowledged is kept. Either way writes are refused from then on.
   * @throws ZeromemError STORAGE_FAILED
   */
  #checkCompanions(): void {
    if (!this.#companions) return;
    const changed = changedCompanion(this.path, this.#companions);
    if (!changed) return;
    this.#writer.db.exec('ROLLBACK');
    if (changed === 'wal') this.#checkpoint('FULL');
    else this.#staleIndex = true;
    this.#refusal ??= companionError(this.path, changed);
    throw this.#refusal;
  }

  /**
   * A failure as the coded error the caller gets. Damage (`corrupt`) found by any read or
   * write is remembered: later writes are refused, so nothing more is acknowledged into a
   * file known to be damaged.
   */
  #failure(err: unknown, during: 'read' | 'write'): ZeromemError {
    const failure = storageError(err, this.path, during);
    // SQLite's own finding (a damaged page), not one record whose content does not match its hash: that one can still be forgotten.
    const code = String((failure.details.cause as { code?: unknown } | undefined)?.code ?? '');
    if ((code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') && !this.#refusal) {
      this.#refusal = new ZeromemError(
        'STORAGE_FAILED',
        `This memory's file was found damaged, so it takes no more writes (${failure.message}). Export what can still be read, then restore the file from a backup or an export, or move it away.`,
        { cause: failure, storage: { reason: 'corrupt', path: this.path } },
      );
    }
    return failure;
  }

  observe<T>(query: () => Promise<T>, observer: { next: (value: T) => void; error: (err: unknown) => void }): () => void {
    return this.#changes.observe(query, observer);
  }

  onAuditWrites(listener: () => void): () => void {
    return this.#changes.onAuditWrites(listener);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#changes.stop();
    if (this.#running === 0) this.#closeFile();
  }

  #ended(): void {
    this.#running--;
    if (this.#closed && this.#running === 0) this.#closeFile();
  }

  #closeFile(): void {
    // The last connection to close checkpoints the WAL from its index and removes it: from a stale index, that would lose the commits others made since.
    if (this.#staleIndex) dropStaleIndex(this.path);
    for (const reader of this.#idleReaders.splice(0)) reader.close();
    this.#writer.close();
    this.#walSync?.close();
  }

  /**
   * After a commit that deleted rows: copies the WAL into the file and truncates it. The
   * deleted bytes are zeroed in the file's pages (`secure_delete`), but older copies of
   * those pages stay in the WAL until then. It waits briefly for other processes' readers;
   * when they hold on, the next deletion (or the last close) does it.
   */
  #checkpoint(mode: 'TRUNCATE' | 'FULL' = 'TRUNCATE'): void {
    const db = this.#writer.db;
    try {
      db.pragma(`busy_timeout = ${CHECKPOINT_WAIT_MS}`);
      db.pragma(`wal_checkpoint(${mode})`);
    } catch {
      // The commit itself is durable; only the WAL's truncation waits for a later checkpoint.
    } finally {
      db.pragma('busy_timeout = 0');
    }
  }
}

/**
 * Ends a read transaction: COMMIT, or ROLLBACK after a failed read. False when even that
 * failed (the connection is then closed, not kept).
 */
function endRead(reader: Connection, failed: boolean): boolean {
  if (!reader.db.inTransaction) return true;
  try {
    reader.db.exec(failed ? 'ROLLBACK' : 'COMMIT');
    return true;
  } catch {
    return false;
  }
}

/** The failure is SQLite's "disk full" (raw, or already coded by a transaction's step). */
function isDiskFull(err: unknown): boolean {
  if (err instanceof ZeromemError) return err.details.storage?.reason === 'full';
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC';
}

/** A deletion failed on a full disk even on the reserve's space. */
function reserveTooSmall(path: string, cause: unknown): ZeromemError {
  return new ZeromemError(
    'QUOTA_EXCEEDED',
    `The disk is full, and this deletion needs more space than is kept in reserve for deletions: nothing was deleted; free space on the disk, or forget fewer memories at once (${path}).`,
    { cause, storage: { reason: 'full', path } },
  );
}

function closedError(): ZeromemError {
  return new ZeromemError('CLOSED', 'This memory was closed; open it again with openMemory().');
}
