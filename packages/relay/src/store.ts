import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { RelayError } from './errors.ts';

/** A room's stored updates, oldest first, and their total size. */
export interface StoredRoom {
  updates: Uint8Array[];
  bytes: number;
}

/** File name of the relay's database inside the data directory. */
export const DATABASE_FILE = 'relay.sqlite';

/**
 * The relay's durable storage: one SQLite database (WAL, `synchronous=FULL`) with one row
 * per Yjs update of a room. An append returns after its rows are fsynced (one commit for
 * all of them), so anything the relay forwards survives a crash. Compaction replaces a
 * room's rows with one merged state and, with `secure_delete` on and the WAL checkpointed
 * and truncated, leaves no bytes of the replaced rows in the directory. Every failure is a
 * STORAGE_FAILED {@link RelayError}. Nothing outside this module knows it is SQLite.
 */
export class RoomStore {
  private readonly db: Database.Database;
  private readonly selectRoom: Database.Statement<[string], { data: Buffer }>;
  private readonly insert: Database.Statement<[string, Uint8Array]>;
  private readonly deleteRoom: Database.Statement<[string]>;
  /** Committed (fsynced) writes since the store was opened. */
  durableWrites = 0;
  /** Updates appended since the store was opened. */
  storedUpdates = 0;

  /**
   * Opens (or creates) the database in `dataDir`. Refuses, with STORAGE_FAILED, a database
   * file that exists but is empty (opening it would start an empty relay: every document
   * gone) or that fails `PRAGMA quick_check`: the relay never serves from, or compacts over,
   * a damaged database.
   */
  constructor(dataDir: string) {
    const file = join(dataDir, DATABASE_FILE);
    if (existsSync(file) && statSync(file).isFile() && statSync(file).size === 0) {
      throw new RelayError(
        'STORAGE_FAILED',
        `The relay database ${file} exists but is empty, so every stored document is gone; the relay does not start on it. Restore it from a backup, or delete it (with any ${DATABASE_FILE}-wal and -shm files) to start an empty relay.`,
      );
    }
    try {
      mkdirSync(dataDir, { recursive: true });
      this.db = new Database(file);
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = FULL');
      this.db.pragma('secure_delete = ON');
      this.db.exec('CREATE TABLE IF NOT EXISTS updates (seq INTEGER PRIMARY KEY AUTOINCREMENT, room TEXT NOT NULL, data BLOB NOT NULL)');
      this.db.exec('CREATE INDEX IF NOT EXISTS updates_by_room ON updates (room, seq)');
    } catch (err) {
      throw new RelayError('STORAGE_FAILED', `Cannot open the relay database ${file}: ${(err as Error).message}. If it is damaged, restore it from a backup.`, { cause: err });
    }
    let problems: string[];
    try {
      problems = (this.db.pragma('quick_check(5)') as Array<{ quick_check: string }>).map((row) => row.quick_check);
    } catch (err) {
      problems = [(err as Error).message];
    }
    if (problems.length !== 1 || problems[0] !== 'ok') {
      this.db.close();
      throw new RelayError(
        'STORAGE_FAILED',
        `The relay database ${file} is damaged (PRAGMA quick_check: ${problems.join('; ')}); the relay does not start on it. Restore it from a backup.`,
      );
    }
    this.selectRoom = this.db.prepare<[string], { data: Buffer }>('SELECT data FROM updates WHERE room = ? ORDER BY seq');
    this.insert = this.db.prepare<[string, Uint8Array]>('INSERT INTO updates (room, data) VALUES (?, ?)');
    this.deleteRoom = this.db.prepare<[string]>('DELETE FROM updates WHERE room = ?');
  }

  /** Every stored update of `room`, oldest first. */
  load(room: string): StoredRoom {
    return storage(`read room ${JSON.stringify(room)}`, () => {
      const updates = this.selectRoom.all(room).map((row) => new Uint8Array(row.data.buffer, row.data.byteOffset, row.data.byteLength));
      return { updates, bytes: updates.reduce((sum, update) => sum + update.byteLength, 0) };
    });
  }

  /** Stores updates of `room` durably, in order, in one transaction: fsynced once, when this returns. */
  appendMany(room: string, updates: readonly Uint8Array[]): void {
    storage('store updates', () =>
      this.db.transaction(() => {
        for (const update of updates) this.insert.run(room, update);
      })(),
    );
    this.durableWrites++;
    this.storedUpdates += updates.length;
  }

  /**
   * Replaces every stored update of `room` by `state` in one transaction, then checkpoints
   * and truncates the WAL so the replaced bytes are gone from the directory.
   */
  replace(room: string, state: Uint8Array): void {
    storage('compact a room', () => {
      this.db.transaction(() => {
        this.deleteRoom.run(room);
        this.insert.run(room, state);
      })();
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    });
    this.durableWrites++;
  }

  /** Closes the database (checkpointing the WAL into it). */
  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** Runs a database call; whatever it throws becomes STORAGE_FAILED, the one error that fails a room. */
function storage<T>(what: string, call: () => T): T {
  try {
    return call();
  } catch (err) {
    throw new RelayError('STORAGE_FAILED', `Cannot ${what}: ${(err as Error).message}`, { cause: err });
  }
}

/** Whether `err` is a failure of the storage (and not, say, of a peer's message). */
export function isStorageFailure(err: unknown): boolean {
  return err instanceof RelayError && err.code === 'STORAGE_FAILED';
}
