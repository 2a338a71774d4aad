import type BetterSqlite3 from 'better-sqlite3';
import { BUSY_TIMEOUT_MS, storageError } from './sqlite-file.ts';

/** How `synchronous` is set for a durability: see the README on what an acknowledged write survives. */
export type Synchronous = 'FULL' | 'NORMAL';

/**
 * One better-sqlite3 connection to a store file and its prepared statements (each SQL
 * text prepared once). WAL: readers read a snapshot and never wait for the writer;
 * `secure_delete` zeroes what a deletion frees in the file.
 */
export class Connection {
  readonly db: BetterSqlite3.Database;
  readonly path: string;
  readonly #statements = new Map<string, BetterSqlite3.Statement>();

  /**
   * @param busyMs how long a statement waits (blocking) for a lock another connection holds;
   * the writer's is 0 (its wait for the write lock is asynchronous, {@link beginImmediate}).
   */
  constructor(Database: typeof BetterSqlite3, path: string, synchronous: Synchronous, busyMs: number) {
    this.path = path;
    this.db = new Database(path, { timeout: busyMs });
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${synchronous}`);
      this.db.pragma('secure_delete = ON');
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  /** The prepared statement of `sql` (raw: rows as arrays, in the order of the columns). */
  raw(sql: string): BetterSqlite3.Statement {
    return this.statement(sql).raw();
  }

  /** The prepared statement of `sql`, its first column only. */
  pluck(sql: string): BetterSqlite3.Statement {
    return this.statement(sql).pluck();
  }

  statement(sql: string): BetterSqlite3.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** First wait between tries for the write lock; doubled up to {@link MAX_RETRY_MS}. */
const FIRST_RETRY_MS = 1;
const MAX_RETRY_MS = 25;

/**
 * `BEGIN IMMEDIATE` on `connection`: takes the file's write lock. While another process
 * holds it, tries again after a short, growing pause (the event loop stays free: reads,
 * other stores, timers go on), for up to {@link BUSY_TIMEOUT_MS}; then STORAGE_FAILED
 * (`locked`): a process held the lock that long, so it probably hangs. `waitLonger`,
 * asked after each try, restarts that wait while it says the holder makes progress.
 */
export async function beginImmediate(connection: Connection, options: { waitLonger?: () => boolean } = {}): Promise<void> {
  let deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (let pause = FIRST_RETRY_MS; ; pause = Math.min(pause * 2, MAX_RETRY_MS)) {
    try {
      connection.db.exec('BEGIN IMMEDIATE');
      return;
    } catch (err) {
      const code = String((err as { code?: unknown }).code ?? '');
      if (!code.startsWith('SQLITE_BUSY')) throw storageError(err, connection.path, 'write');
      // A holder known to make progress (a migration) is waited for as long as it does.
      if (options.waitLonger?.()) deadline = Date.now() + BUSY_TIMEOUT_MS;
      if (Date.now() >= deadline) throw storageError(err, connection.path, 'write');
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
