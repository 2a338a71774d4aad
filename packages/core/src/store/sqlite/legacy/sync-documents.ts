/**
 * The one-time move of @zeromem/sync's documents out of the file of their own the releases
 * before format 1002 kept them in (`<name>-sync.sqlite` next to the memory's file: an
 * IndexedDB persisted to SQLite, idb-rows.ts, holding sync's Dexie database with object
 * stores `updates` {seq, room, update} and `rooms` {room, cursor}) into the memory's own
 * document logs (sqlite-schema.ts `doc_updates`, `doc_cursors`), inside the caller's write
 * transaction. The old files are removed after the commit ({@link removeSyncDocumentsFile}):
 * from then on the memory's file is the only one, and a forget's compaction reaches every
 * byte of its documents.
 */
import { existsSync, rmSync } from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import { ZeromemError } from '../../../public/errors.ts';
import type { Connection } from '../sqlite-connection.ts';
import { storeFilePath } from '../sqlite-file.ts';
import { eachValue, oldStores } from './idb-rows.ts';

/**
 * Where the releases before format 1002 kept the shared documents of memory `name` (under
 * the file name those releases gave it, which sqlite-file.ts still finds: they did not
 * normalise names to NFC).
 */
export function syncDocumentsFile(directory: string, name: string): string {
  return storeFilePath(directory, `${name}-sync`);
}

/** True when memory `name` has a file of sync documents of an earlier release to move in. */
export function hasSyncDocumentsFile(path: string): boolean {
  return existsSync(path);
}

/**
 * Copies the documents of the old file at `path` into the document logs of the writer's
 * file, in the writer's open write transaction. A room that already has a log there is
 * left as it is (a process stopped between this commit and the removal of the old file
 * moved it already). The old file is only read.
 * @throws ZeromemError STORAGE_FAILED (`corrupt`, naming the old file) when it cannot be read: nothing is moved
 */
export function moveSyncDocuments(writer: Connection, Database: typeof BetterSqlite3, path: string): void {
  const updates = new Map<string, Array<{ seq: number; update: Uint8Array }>>();
  const cursors = new Map<string, number>();
  try {
    readOldFile(Database, path, updates, cursors);
  } catch (err) {
    throw new ZeromemError(
      'STORAGE_FAILED',
      `The shared documents an earlier release kept beside this memory could not be read, so they were not moved into its file; the file was left as it is. Move it away to open the memory (sharing downloads the documents again) (${path}: ${err instanceof Error ? err.message : String(err)})`,
      { cause: err, storage: { reason: 'corrupt', path } },
    );
  }
  const stored = writer.pluck('SELECT 1 FROM doc_updates WHERE room = ? UNION ALL SELECT 1 FROM doc_cursors WHERE room = ? LIMIT 1');
  const insert = writer.statement('INSERT INTO doc_updates (room, body) VALUES (?, ?)');
  const setCursor = writer.statement('INSERT INTO doc_cursors (room, cursor) VALUES (?, ?)');
  for (const room of new Set([...updates.keys(), ...cursors.keys()])) {
    if (stored.get(room, room) !== undefined) continue;
    for (const { update } of (updates.get(room) ?? []).sort((a, b) => a.seq - b.seq)) insert.run(room, update);
    const cursor = cursors.get(room);
    if (cursor !== undefined) setCursor.run(room, cursor);
  }
}

/** The updates and cursors of the old file, by room. */
function readOldFile(Database: typeof BetterSqlite3, path: string, updates: Map<string, Array<{ seq: number; update: Uint8Array }>>, cursors: Map<string, number>): void {
  const old = new Database(path, { fileMustExist: true });
  try {
    const hasStores = old.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'stores'").get() !== undefined;
    for (const store of hasStores ? oldStores(old) : []) {
      if (store.name === 'updates') {
        eachValue(old, store, (value) => {
          const row = value as { seq: number; room: string; update: Uint8Array };
          const room = updates.get(row.room) ?? [];
          room.push({ seq: row.seq, update: row.update });
          updates.set(row.room, room);
        });
      } else if (store.name === 'rooms') {
        eachValue(old, store, (value) => {
          const row = value as { room: string; cursor: number };
          cursors.set(row.room, row.cursor);
        });
      }
    }
  } finally {
    old.close();
  }
}

/** Removes the old file of sync documents and SQLite's files beside it. */
export function removeSyncDocumentsFile(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true });
}
