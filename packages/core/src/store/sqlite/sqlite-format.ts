/**
 * What a store file holds, checked at open and at every write: a SQLite file whole, in
 * this release's format (sqlite-schema.ts), or in the format of earlier releases, which is
 * migrated once: the format before the SQLite engine (legacy/memory-file.ts), format 1001
 * (no document logs: their tables are added), formats 1001-1002 (vectors with their zeros:
 * trimmed), formats 1001-1003 (seven record indexes, vectors keyed by the model's name and
 * the hash's hex: three indexes dropped, vectors rewritten), format 1004 (snapshot bodies in
 * one row only: the table of pieces is added), and sync's documents in a file of their own
 * (legacy/sync-documents.ts).
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import { ZeromemError } from '../../public/errors.ts';
import { migrateLegacyFile } from './legacy/memory-file.ts';
import { hasSyncDocumentsFile, moveSyncDocuments, removeSyncDocumentsFile } from './legacy/sync-documents.ts';
import { beginImmediate, type Connection } from './sqlite-connection.ts';
import { MigrationReport, runningMigration } from './sqlite-migration-progress.ts';
import type { MigrationProgress } from '../../public/node-options.ts';
import { vectorBlobOfWhole } from './sqlite-rows.ts';
import { FORMAT_BEFORE_DOC_LOGS, FORMAT_BEFORE_SNAPSHOT_PIECES, FORMAT_BEFORE_TRIMMED_VECTORS, FORMAT_BEFORE_VECTOR_MODELS, FORMAT_VERSION, TABLES, VECTOR_MODELS_TABLE, vectorsTable } from './sqlite-schema.ts';

const HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * The file is a SQLite database and not cut short: a file shorter than the page count its
 * header gives would open and lose its last pages silently (unless a WAL holds them).
 * Reads only; the file is left as it is.
 * @throws ZeromemError STORAGE_FAILED (`corrupt`) saying what is wrong
 */
export function checkHeader(path: string): void {
  const size = statSync(path).size;
  const header = Buffer.alloc(100);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  const corrupt = (why: string) =>
    new ZeromemError('STORAGE_FAILED', `The memory file is damaged or not a zeromem store; it was left as it is. Restore it from a backup or an export, or move it away (${path}: ${why})`, {
      storage: { reason: 'corrupt', path },
    });
  if (size < 100 || !header.subarray(0, 16).equals(HEADER)) throw corrupt(size < 100 ? `${size} bytes, shorter than a SQLite header` : 'not a SQLite file');
  const pageSize = header.readUInt16BE(16) === 1 ? 65_536 : header.readUInt16BE(16);
  const pages = header.readUInt32BE(28);
  // The page count is valid when the change counter matches "version-valid-for" (SQLite's file format).
  const valid = header.readUInt32BE(24) === header.readUInt32BE(92);
  const wal = `${path}-wal`;
  const walHoldsPages = existsSync(wal) && statSync(wal).size > 32;
  if (valid && pages * pageSize > size && !walHoldsPages) throw corrupt(`truncated: ${size} bytes of ${pages * pageSize}`);
}

/** Where an opened file's earlier releases may have left more of it: sync's documents (legacy/sync-documents.ts). */
export interface OldFiles {
  Database: typeof BetterSqlite3;
  /** The file sync's documents were kept in before format 1002. */
  syncDocuments: string;
}

/**
 * Makes the opened file ready to use: this release's format as it is, an earlier
 * release's migrated (once, by whichever process comes first, in one write transaction),
 * anything else refused. Reading the tables' first pages also finds damage there now
 * rather than at a later read.
 * @throws ZeromemError STORAGE_FAILED (`locked` for another release's format, `corrupt`)
 */
export async function openFormat(writer: Connection, old: OldFiles, onMigration?: (progress: MigrationProgress) => void): Promise<void> {
  if (needsMigration(writer, old)) {
    // Another process's migration holds the lock far longer than a write: waited for while it makes progress.
    await beginImmediate(writer, { waitLonger: () => waitingFor(runningMigration(writer.path), onMigration) });
    let vacuum = false;
    let moved = false;
    const report = new MigrationReport(writer.path, onMigration);
    try {
      // Another process may have migrated it while this one waited for the lock.
      if (!hasTable(writer, 'records') && hasTable(writer, 'rows')) {
        writer.db.exec(TABLES);
        migrateLegacyFile(writer, (done, total) => report.progress(done, total));
        vacuum = true;
      } else if (hasTable(writer, 'records') && EARLIER_FORMATS.includes(versionOf(writer)!)) {
        const version = versionOf(writer)!;
        if (version < FORMAT_BEFORE_VECTOR_MODELS) trimVectors(writer);
        if (version < FORMAT_BEFORE_SNAPSHOT_PIECES) {
          leanRecordsAndVectors(writer);
          vacuum = true;
        }
        writer.db.exec(TABLES); // 1004 to 1005: only the table of snapshot pieces is new
        writer.statement("UPDATE meta SET v = ? WHERE k = 'version'").run(FORMAT_VERSION);
      }
      if (hasTable(writer, 'records') && versionOf(writer) === FORMAT_VERSION && hasSyncDocumentsFile(old.syncDocuments)) {
        moveSyncDocuments(writer, old.Database, old.syncDocuments);
        moved = true;
      }
      writer.db.exec('COMMIT');
    } finally {
      report.end();
      if (writer.db.inTransaction) writer.db.exec('ROLLBACK');
    }
    if (moved) removeSyncDocumentsFile(old.syncDocuments);
    if (vacuum) compact(writer);
  }
  if (!hasTable(writer, 'records')) {
    throw new ZeromemError('STORAGE_FAILED', `The file is a SQLite database but not a zeromem store; it was left as it is. Move it away or choose another name (${writer.path})`, {
      storage: { reason: 'corrupt', path: writer.path },
    });
  }
  checkFormat(writer);
  // Their first pages: damage there is found at open.
  for (const table of ['records', 'record_tags', 'audit', 'vectors', 'index_snapshots', 'index_snapshot_pieces', 'doc_updates', 'doc_cursors']) writer.pluck(`SELECT 1 FROM ${table} LIMIT 1`).get();
}

/**
 * The file's format is still this release's (at open, and in every write transaction:
 * another release may have changed it while this process had it open).
 * @throws ZeromemError STORAGE_FAILED (`locked`) saying why
 */
export function checkFormat(connection: Connection): void {
  const version = versionOf(connection);
  if (version === FORMAT_VERSION) return;
  throw new ZeromemError(
    'STORAGE_FAILED',
    `Another process changed this memory's format (to version ${version ?? 'none'}, this process reads version ${FORMAT_VERSION}), probably a newer zeromem: this process cannot share it; use the same zeromem version in every process (${connection.path})`,
    { storage: { reason: 'locked', path: connection.path } },
  );
}

/** Gives the old tables' pages back to the file system (once, after the migration); when another process is writing, the file stays as large. */
function compact(writer: Connection): void {
  try {
    writer.db.exec('VACUUM');
  } catch {
    // Only space: the free pages are zeroed (secure_delete) and reused by later writes.
  }
}

/** True when the file is of an earlier format, or sync's documents of an earlier release wait beside it. */
function needsMigration(writer: Connection, old: OldFiles): boolean {
  if (!hasTable(writer, 'records')) return hasTable(writer, 'rows');
  return EARLIER_FORMATS.includes(versionOf(writer)!) || hasSyncDocumentsFile(old.syncDocuments);
}

/** SQLite formats of earlier releases that are migrated in place. */
const EARLIER_FORMATS: ReadonlyArray<number | undefined> = [FORMAT_BEFORE_DOC_LOGS, FORMAT_BEFORE_TRIMMED_VECTORS, FORMAT_BEFORE_VECTOR_MODELS, FORMAT_BEFORE_SNAPSHOT_PIECES];

/**
 * Moves the vectors of a file before format 1003 (every float32 value, zeros too, in a
 * table without rowid) into this release's table, trimmed (from the first non-zero value
 * to the last): an English vector of the bundled embedder goes from 2,560 bytes to 520.
 * Runs before {@link leanRecordsAndVectors}, which then moves them on to this release's table.
 */
function trimVectors(writer: Connection): void {
  writer.db.function('zeromem_trim_vector', (blob: unknown) => vectorBlobOfWhole(blob as Buffer | null));
  writer.db.exec('CREATE TABLE vectors_1003 (model TEXT NOT NULL, hash TEXT NOT NULL, vector BLOB)');
  writer.statement('INSERT INTO vectors_1003 (model, hash, vector) SELECT model, hash, zeromem_trim_vector(vector) FROM vectors ORDER BY model, hash').run();
  writer.db.exec('DROP TABLE vectors; ALTER TABLE vectors_1003 RENAME TO vectors');
}

/**
 * Format 1003 to 1004: drops the record indexes no query uses any more (a user's records,
 * a whole namespace by either time: sqlite-schema.ts), and moves the vectors (model name
 * and hex hash in every row) into this release's table: the model as the row id of its name
 * in `vector_models`, the hash as its bytes (sqlite-rows.ts `hashKey`, here in SQL), in the
 * order they were written. Runs before TABLES, which then creates the table's index.
 */
function leanRecordsAndVectors(writer: Connection): void {
  writer.db.exec(`DROP INDEX IF EXISTS records_by_user; DROP INDEX IF EXISTS records_by_created; DROP INDEX IF EXISTS records_by_updated;
    ${VECTOR_MODELS_TABLE}; ${vectorsTable('vectors_1004')};
    INSERT OR IGNORE INTO vector_models (name) SELECT DISTINCT model FROM vectors ORDER BY model;
    INSERT INTO vectors_1004 (model, hash, vector)
      SELECT m.id, CASE WHEN length(v.hash) = 64 AND v.hash NOT GLOB '*[^0-9a-f]*' THEN unhex(v.hash) ELSE v.hash END, v.vector
      FROM vectors v JOIN vector_models m ON m.name = v.model ORDER BY v.rowid;
    DROP TABLE vectors; ALTER TABLE vectors_1004 RENAME TO vectors;`);
}

function versionOf(connection: Connection): number | undefined {
  return connection.pluck("SELECT v FROM meta WHERE k = 'version'").get() as number | undefined;
}

/** Whether a migration runs (telling `listener` how far it came): the wait for its lock goes on. */
function waitingFor(running: MigrationProgress | undefined, listener: ((progress: MigrationProgress) => void) | undefined): boolean {
  if (running) listener?.(running);
  return running !== undefined;
}

function hasTable(connection: Connection, name: string): boolean {
  return connection.pluck("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}
