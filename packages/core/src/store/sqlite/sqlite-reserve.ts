/**
 * Disk space kept in reserve for deletions, so a forget succeeds on a full disk (issue 29).
 * In WAL mode a deletion writes too: the changed pages go to the `-wal` file first, and
 * SQLite cannot delete in place. So beside each store file lies `<file>-reserve`, a file of
 * {@link RESERVE_BYTES} zeros written at open. When a write that deletes fails because the
 * disk is full, the engine removes the reserve (its blocks go back to the file system),
 * checkpoints and truncates the WAL, and runs the deletion again; once the deletion is
 * committed and checkpointed, the reserve is written again as far as the disk allows.
 * Writes that only add never use it: they fail with QUOTA_EXCEEDED first.
 */
import { closeSync, constants, fstatSync, openSync, rmSync, writeSync } from 'node:fs';

/**
 * Bytes kept in reserve: 256 WAL frames of 4 KiB pages, more than a forget of one record
 * touches (its row, eight index entries, its tags, an audit row: about 20 pages) and a
 * `forgetWhere` of some hundred records in one namespace needs (their pages are shared).
 * A deletion that needs more on a full disk fails with QUOTA_EXCEEDED saying so.
 */
export const RESERVE_BYTES = 1 << 20;

/** The reserve file of the store file `path`. */
export function reservePath(path: string): string {
  return `${path}-reserve`;
}

/**
 * Writes the reserve up to {@link RESERVE_BYTES} (a no-op when it is whole). On a full disk
 * it keeps what fit; the next deletion's checkpoint tries again. Several processes may
 * write it at once: each writes the same bytes at the same offsets.
 */
export function keepReserve(path: string): void {
  let fd: number | undefined;
  try {
    // Not O_APPEND: positioned writes of the same zeros by several processes leave one reserve, not several.
    fd = openSync(reservePath(path), constants.O_RDWR | constants.O_CREAT, 0o600);
    const zeros = Buffer.alloc(64 * 1024);
    for (let at = fstatSync(fd).size; at < RESERVE_BYTES; ) at += writeSync(fd, zeros, 0, Math.min(zeros.length, RESERVE_BYTES - at), at);
  } catch {
    // A full disk or a read-only directory: the store works without a (whole) reserve.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Gives the reserve's space back to the file system, for a deletion on a full disk. */
export function releaseReserve(path: string): void {
  rmSync(reservePath(path), { force: true });
}
