/**
 * How far the one-time migration of an earlier release's store file has come, for the
 * processes that open the file meanwhile. The migration runs in one write transaction
 * (about 4,000 records a second), so the others wait for the write lock longer than a
 * write ever holds it: the migrating process keeps `<file>-migrate` (JSON: pid, rows
 * copied, rows in all) current after every page of rows, and removes it at the end; an
 * opener waits as long as that file is fresh, and hears its progress.
 */
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { MigrationProgress } from '../../public/node-options.ts';

/** A progress file not written for this long belongs to a process that died: the lock it held is free. */
const FRESH_MS = 10_000;
/** Progress is written (and reported) at most this often. */
const EVERY_MS = 250;

function progressPath(path: string): string {
  return `${path}-migrate`;
}

/** Writes the migrating process's progress for the others (see the module comment), and tells `listener`. */
export class MigrationReport {
  readonly #path: string;
  readonly #listener: ((progress: MigrationProgress) => void) | undefined;
  #last = 0;

  constructor(path: string, listener: ((progress: MigrationProgress) => void) | undefined) {
    this.#path = path;
    this.#listener = listener;
  }

  /** `done` of `total` rows copied (written when the last report is {@link EVERY_MS} old, or at the end). */
  progress(done: number, total: number): void {
    if (done < total && Date.now() - this.#last < EVERY_MS) return;
    this.#last = Date.now();
    const progress: MigrationProgress = { path: this.#path, state: 'migrating', pid: process.pid, done, total };
    try {
      writeFileSync(progressPath(this.#path), JSON.stringify({ pid: process.pid, done, total }));
    } catch {
      // Without it the others wait as long as any write (then fail as `locked`, saying a migration may run).
    }
    this.#listener?.(progress);
  }

  end(): void {
    rmSync(progressPath(this.#path), { force: true });
  }
}

/**
 * The migration another process is running on `path`, when its progress file is fresh, or
 * `undefined`.
 */
export function runningMigration(path: string): MigrationProgress | undefined {
  const file = progressPath(path);
  try {
    if (Date.now() - statSync(file).mtimeMs > FRESH_MS) return undefined;
    const { pid, done, total } = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; done: number; total: number };
    return { path, state: 'waiting', pid, done, total };
  } catch {
    return undefined;
  }
}
