import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { RelayError } from '@zeromem/protocol';
import { type Revocation, type RoomAppend, type RoomStorage, type StoredRoom, totalBytes } from './room-storage.ts';

/** File name of the relay's database inside the data directory. */
export const DATABASE_FILE = 'relay.sqlite';

/**
 * The single-process relay's durable storage: one SQLite database (WAL, `synchronous=FULL`) with one row
 * per Yjs update of a room. An append returns after its rows are fsynced (one commit for
 * all of them), so anything the relay forwards survives a crash. Compaction replaces a
 * room's rows with one merged state and, with `secure_delete` on and the WAL checkpointed
 * and truncated, leaves no bytes of the replaced rows in the directory. Every failure is a
 * STORAGE_FAILED {@link RelayError}. Nothing outside this module knows it is SQLite. The
calls are synchronous underneath (better-sqlite3); the promises only fit {@link RoomStorage}.
 */
export class SqliteStore implements RoomStorage {
  readonly kind = 'sqlite';
  private readonly db: Database.Database;
  private readonly selectRoom: Database.Statement<[string, number], { seq: number; data: Buffer }>;
  private readonly insert: Database.Statement<[string, Uint8Array]>;
  private readonly deleteRoom: Database.Statement<[string, number]>;
  private readonly selectHead: Database.Statement<[string], { head: number | null }>;
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
      this.db.exec('CREATE TABLE IF NOT EXISTS revocations (kind TEXT NOT NULL, value TEXT NOT NULL, revoked_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (kind, value))');
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
    this.selectRoom = this.db.prepare<[string, number], { seq: number; data: Buffer }>('SELECT seq, data FROM updates WHERE room = ? AND seq > ? ORDER BY seq');
    this.selectHead = this.db.prepare<[string], { head: number | null }>('SELECT max(seq) AS head FROM updates WHERE room = ?');
    this.insert = this.db.prepare<[string, Uint8Array]>('INSERT INTO updates (room, data) VALUES (?, ?)');
    this.deleteRoom = this.db.prepare<[string, number]>('DELETE FROM updates WHERE room = ? AND seq <= ?');
  }

  async load(room: string): Promise<StoredRoom> {
    return this.since(room, 0);
  }

  async since(room: string, head: number): Promise<StoredRoom> {
    return storage(`read room ${JSON.stringify(room)}`, () => {
      const rows = this.selectRoom.all(room, head);
      const updates = rows.map((row) => new Uint8Array(row.data.buffer, row.data.byteOffset, row.data.byteLength));
      return { updates, bytes: totalBytes(updates), head: rows.at(-1)?.seq ?? head };
    });
  }

  async heads(rooms: readonly string[]): Promise<Map<string, number>> {
    return storage('read room heads', () => {
      const heads = new Map<string, number>();
      for (const room of rooms) {
        const head = this.selectHead.get(room)?.head;
        if (typeof head === 'number') heads.set(room, head);
      }
      return heads;
    });
  }

  /** Stores the updates of every listed room durably, in order, in one transaction: fsynced once, when this returns. */
  async append(appends: readonly RoomAppend[]): Promise<number[]> {
    const heads = storage('store updates', () =>
      this.db.transaction(() =>
        appends.map(({ room, updates }) => {
          let last = 0;
          for (const update of updates) last = Number(this.insert.run(room, update).lastInsertRowid);
          return last;
        }),
      )(),
    );
    this.durableWrites++;
    for (const { updates } of appends) this.storedUpdates += updates.length;
    return heads;
  }

  /**
   * Replaces the stored updates of `room` up to `head` (what the caller's document holds:
   * one process stores nothing else before them) by `encode([])` in one transaction, then
   * checkpoints and truncates the WAL so the replaced bytes are gone from the directory.
   */
  async compact(room: string, head: number, encode: (missing: Uint8Array[]) => Uint8Array): Promise<{ head: number; bytes: number }> {
    const state = encode([]);
    const stateHead = storage('compact a room', () => {
      const seq = this.db.transaction(() => {
        this.deleteRoom.run(room, head);
        return Number(this.insert.run(room, state).lastInsertRowid);
      })();
      this.db.pragma('wal_checkpoint(TRUNCATE)');
      return seq;
    });
    this.durableWrites++;
    return { head: stateHead, bytes: state.byteLength };
  }

  async revoke(revocation: Revocation): Promise<void> {
    storage('store a revocation', () => {
      this.db
        .prepare('INSERT INTO revocations (kind, value, revoked_at, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (kind, value) DO UPDATE SET revoked_at = excluded.revoked_at, expires_at = excluded.expires_at')
        .run(revocation.kind, revocation.value, revocation.revokedAt, revocation.expiresAt);
    });
  }

  async revocations(): Promise<Revocation[]> {
    return storage('read revocations', () => {
      const rows = this.db
        .prepare<[number], { kind: 'token' | 'subject'; value: string; revoked_at: number; expires_at: number }>('SELECT kind, value, revoked_at, expires_at FROM revocations WHERE expires_at > ?')
        .all(Date.now());
      return rows.map((row) => ({ kind: row.kind, value: row.value, revokedAt: row.revoked_at, expiresAt: row.expires_at }));
    });
  }

  /** Closes the database (checkpointing the WAL into it). */
  async close(): Promise<void> {
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
