import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { mkdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { JobError } from '../jobs/job-error.ts';
import type { ImportCounts } from './import-stream.ts';

/** Which file, exactly, a checkpoint belongs to: a changed file cannot be resumed. */
export interface FileFingerprint {
  size: number;
  mtimeMs: number;
  /** SHA-256 of its first 64 KiB. */
  head: string;
}

/**
 * What an interrupted import had committed. Written (atomically: temporary file, fsync,
 * rename) after each batch's transaction has committed and its failures are in the
 * report, so it never claims more than the store holds.
 */
export interface ImportCheckpoint {
  version: 1;
  input: string;
  fingerprint: FileFingerprint;
  /** The options that decide what is stored (the default namespace): a rerun must give the same. */
  settings: Record<string, unknown>;
  /** Items of the file (in file order) whose batch has committed. */
  units: number;
  /** The line the last committed item started on. */
  line: number;
  /** Length of the failure report at that commit (a rerun cuts off anything after it). */
  reportBytes: number;
  counts: ImportCounts;
}

/** Where the checkpoint of importing `input` into a store is kept: `<dir>/jobs/import-<name>-<hash of the input path>.json`. */
export function checkpointPath(directory: string, storeName: string, input: string): string {
  const id = createHash('sha256').update(input).digest('hex').slice(0, 16);
  return join(directory, 'jobs', `import-${storeName}-${basename(input).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40)}-${id}.json`);
}

/** What tells a changed input file from the one a checkpoint was made of: size, mtime and a SHA-256 of its first 64 KiB. */
export function fingerprint(file: string): FileFingerprint {
  const { size, mtimeMs } = statSync(file);
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(Math.min(size, 64 * 1024));
    readSync(fd, head, 0, head.length, 0);
    return { size, mtimeMs, head: createHash('sha256').update(head).digest('hex') };
  } finally {
    closeSync(fd);
  }
}

/** The checkpoint, or `undefined` when there is none. A damaged one is INVALID_INPUT (delete it or pass --restart). */
export function readCheckpoint(path: string): ImportCheckpoint | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const value = JSON.parse(text) as ImportCheckpoint;
    if (value.version === 1 && Number.isSafeInteger(value.units) && value.counts) return value;
  } catch {
    // reported below
  }
  throw new JobError('INVALID_INPUT', `the checkpoint ${path} is damaged; pass --restart to import from the start (records already stored are found again, not copied)`);
}

/** Writes the checkpoint so that a crash leaves either the old one or the new one. */
export function writeCheckpoint(path: string, checkpoint: ImportCheckpoint): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.tmp`;
  const fd = openSync(temporary, 'w');
  try {
    writeSync(fd, `${JSON.stringify(checkpoint)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/** Deletes the checkpoint and any half-written replacement of it (after a finished import, or `--restart`). */
export function removeCheckpoint(path: string): void {
  rmSync(path, { force: true });
  rmSync(`${path}.tmp`, { force: true });
}

/** Same file, same settings? Otherwise the checkpoint cannot be trusted for this run. */
export function checkResumable(checkpoint: ImportCheckpoint, current: FileFingerprint, settings: Record<string, unknown>, path: string): void {
  const same = checkpoint.fingerprint.size === current.size && checkpoint.fingerprint.mtimeMs === current.mtimeMs && checkpoint.fingerprint.head === current.head;
  if (!same) {
    throw new JobError('CONFLICT', `the file changed since the interrupted import (checkpoint ${path}); pass --restart to import it from the start (records already stored are found again, not copied)`);
  }
  if (JSON.stringify(checkpoint.settings) !== JSON.stringify(settings)) {
    throw new JobError('CONFLICT', `the interrupted import ran with other options (${JSON.stringify(checkpoint.settings)}); give the same, or pass --restart`);
  }
}
