/**
 * A store's SQLite file as the Node engine opens it (sqlite-engine.ts): its name on disk,
 * the checks before SQLite touches it, its creation as a whole file, and SQLite's
 * failures as coded errors.
 */
import { accessSync, constants, existsSync, linkSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { invalidInput } from '../../model/errors.ts';
import { ZeromemError, type StorageProblem } from '../../public/errors.ts';

const require = createRequire(import.meta.url);
let driver: typeof BetterSqlite3 | undefined;

/** better-sqlite3, loaded on first use: it is an optional dependency, and browsers never get here. */
export function loadDriver(path: string): typeof BetterSqlite3 {
  if (driver) return driver;
  try {
    driver = require('better-sqlite3') as typeof BetterSqlite3;
    return driver;
  } catch (err) {
    throw new ZeromemError(
      'UNSUPPORTED_ENVIRONMENT',
      'Durable storage in Node needs better-sqlite3, which did not install (it compiles from source when no prebuilt binary fits your platform: install a C++ toolchain and reinstall), or pass { indexedDB, IDBKeyRange } for in-memory storage.',
      { cause: err, storage: { reason: 'unavailable', path } },
    );
  }
}

/**
 * Disk file names of databases: the name in Unicode NFC (so the NFC and NFD spellings of
 * one name, as macOS and Linux keyboards or file pickers may give them, are one store),
 * ASCII letters, digits, `_` and `-` kept, every other UTF-8 byte %-encoded (`.` and `/`
 * too), so every name maps to one file and back and none can point elsewhere. A name
 * Windows reserves for a device (`con`, `nul`, `com1`, ...: such a file cannot be created
 * there, whatever its extension) has its first letter %-encoded too (`%63on.sqlite`).
 */
export function fileNameOf(name: string): string {
  const encoded = encodeName(name.normalize('NFC'));
  return `${WINDOWS_DEVICES.test(encoded) ? `%${encoded.charCodeAt(0).toString(16).toUpperCase()}${encoded.slice(1)}` : encoded}.sqlite`;
}

/** Names Windows reserves for devices, in any case. */
const WINDOWS_DEVICES = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

function encodeName(name: string): string {
  let out = '';
  for (const byte of Buffer.from(name, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9_-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * The file of database `name` in `directory`: {@link fileNameOf}'s, unless only a file an
 * earlier release named (the name's bytes as given, NFC or NFD, device names unescaped)
 * exists, which is then used as it is (renaming it could split it from its `-wal`).
 */
export function storeFilePath(directory: string, name: string): string {
  const path = join(directory, fileNameOf(name));
  if (existsSync(path)) return path;
  for (const spelling of new Set([name, name.normalize('NFC'), name.normalize('NFD')])) {
    const earlier = join(directory, `${encodeName(spelling)}.sqlite`);
    if (earlier !== path && existsSync(earlier)) return earlier;
  }
  return path;
}

/** The longest file name most file systems take (ext4, APFS, NTFS: 255 bytes). */
export const MAX_FILE_NAME_BYTES = 255;

/** The longest of the files SQLite keeps next to a store (`-wal`, `-shm`; `-journal` while one is created). */
const LONGEST_COMPANION = '-journal';

/** Why a database name cannot be a file of {@link fileNameOf} (its file names are too long), or `undefined` when it can. */
export function fileNameProblem(name: string): string | undefined {
  const bytes = Buffer.byteLength(fileNameOf(name) + LONGEST_COMPANION);
  if (bytes <= MAX_FILE_NAME_BYTES) return undefined;
  return `must make file names of at most ${MAX_FILE_NAME_BYTES} bytes: "<name>.sqlite${LONGEST_COMPANION}" would be ${bytes} bytes (letters, digits, "_" and "-" take 1 byte each, every other UTF-8 byte 3)`;
}

/**
 * How long a write waits for another process's write transaction to end before it fails
 * as `locked`. Transactions are short (one verb), so a wait this long means a process hung
 * while holding the lock.
 */
export const BUSY_TIMEOUT_MS = 10_000;

/** How long the checkpoint after a deletion waits for other processes' readers. */
export const CHECKPOINT_WAIT_MS = 200;

/**
 * Creates a new store file whole: written under a temporary name (WAL mode, `tables`) and
 * then linked into place, so no process ever sees a store file that is empty, which is
 * damage ({@link checkStoreFile}). When another process created it first, that file stays.
 */
function createStoreFile(Database: typeof BetterSqlite3, path: string, tables: string): void {
  // Short: the store's own name may be as long as file names go.
  const temporary = join(dirname(path), `.${process.pid}-${Date.now()}.new`);
  try {
    const db = new Database(temporary);
    try {
      db.pragma('journal_mode = WAL');
      db.exec(tables);
    } finally {
      db.close();
    }
    try {
      linkSync(temporary, path);
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'EEXIST') throw err;
    }
  } finally {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${temporary}${suffix}`, { force: true });
  }
}

/**
 * A SQLite or file-system failure as a coded error that says which file and what to do.
 * `undecodable`: the failure came from decoding what was read, so the file is damaged.
 */
export function storageError(err: unknown, path: string, during: 'open' | 'read' | 'write', undecodable = false): ZeromemError {
  if (err instanceof ZeromemError) return err;
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  const message = err instanceof Error ? err.message : String(err);
  const problem = (reason: StorageProblem['reason'], text: string) =>
    new ZeromemError('STORAGE_FAILED', `${text} (${path}: ${message})`, { cause: err, storage: { reason, path } });
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') {
    return new ZeromemError('QUOTA_EXCEEDED', `The disk is full: nothing of this operation was written; free space on the disk, then try again (${path}).`, {
      cause: err,
      storage: { reason: 'full', path },
    });
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return problem(
      'locked',
      `Another process held this memory's write lock for over ${BUSY_TIMEOUT_MS / 1000} s (it may hang): nothing of this operation was written; try again, or end that process`,
    );
  }
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT') || (undecodable && !code.startsWith('SQLITE_'))) {
    return problem('corrupt', 'The memory file is damaged or not a zeromem store; it was left as it is. Restore it from a backup or an export, or move it away');
  }
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS' || code === 'EACCES' || code === 'EPERM' || code.startsWith('SQLITE_CANTOPEN')) {
    return problem('read-only', 'The memory file or its directory cannot be written by this process; fix its permissions or choose another directory');
  }
  return problem('unavailable', `The memory file could not be ${during === 'open' ? 'opened' : during === 'read' ? 'read' : 'written'}; nothing of this operation was written`);
}

/**
 * The path of database `name`'s file in `directory`, checked before SQLite opens it: a name
 * too long for a file is INVALID_INPUT, a directory or file this process cannot write is
 * `read-only`, an empty file is `corrupt` (SQLite would take it for a new database and
 * the records would be gone without an error). A missing file is created whole with `tables`.
 * @throws ZeromemError INVALID_INPUT, UNSUPPORTED_ENVIRONMENT (no better-sqlite3), STORAGE_FAILED
 */
export function prepareStoreFile(directory: string, name: string, tables: string): { path: string; Database: typeof BetterSqlite3 } {
  const tooLong = fileNameProblem(name);
  if (tooLong) throw invalidInput('openMemory options', [{ path: 'name', message: tooLong }]);
  const path = storeFilePath(directory, name);
  const Database = loadDriver(path);
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    // SQLite would open a read-only file read-only and fail later, on its WAL, with a plain I/O error.
    accessSync(directory, constants.W_OK);
    if (existsSync(path)) accessSync(path, constants.R_OK | constants.W_OK);
  } catch (err) {
    throw storageError(err, path, 'open');
  }
  // Stores are never empty files (new ones are created whole, then linked into place), so an empty one is damage.
  if (existsSync(path) && statSync(path).size === 0) {
    throw storageError(new Error('the file is empty (0 bytes): its records are gone'), path, 'open', true);
  }
  try {
    if (!existsSync(path)) createStoreFile(Database, path, tables);
  } catch (err) {
    throw storageError(err, path, 'open');
  }
  return { path, Database };
}
