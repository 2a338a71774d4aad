/**
 * The files SQLite keeps beside a store in WAL mode, `-wal` (the latest commits, until a
 * checkpoint copies them into the file) and `-shm` (the index of the WAL that every
 * process shares), and what happens when something else removes them (a cleaner, a backup
 * tool restoring only the main file). SQLite does not notice: a process keeps writing into
 * a removed WAL (acknowledged, then gone at its exit), and two processes with different
 * `-shm` files overwrite each other's commits. So the engine notes both files' identity at
 * open, checks it before each write transaction and refuses writes once either changed;
 * and an open refuses a store whose WAL is gone while its `-shm` says it held commits.
 */
import { closeSync, existsSync, openSync, readdirSync, readlinkSync, readSync, realpathSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { endianness } from 'node:os';
import { ZeromemError } from '../../public/errors.ts';

/** Which file is which, by device and inode. */
export interface Companions {
  wal: string;
  shm: string;
}

/** The identity of the store file `path`'s `-wal` and `-shm` now, or `undefined` when one is missing. */
export function companionsOf(path: string): Companions | undefined {
  const wal = identity(`${path}-wal`);
  const shm = identity(`${path}-shm`);
  return wal && shm ? { wal, shm } : undefined;
}

/** Which of the two files was removed or replaced since `known` was taken, if any. */
export function changedCompanion(path: string, known: Companions): 'wal' | 'shm' | undefined {
  // The index first: when it was replaced, another process may have removed the WAL by right (its last close).
  if (identity(`${path}-shm`) !== known.shm) return 'shm';
  if (identity(`${path}-wal`) !== known.wal) return 'wal';
  return undefined;
}

/** The refusal of every write after {@link changedCompanion} found one changed. */
export function companionError(path: string, which: 'wal' | 'shm'): ZeromemError {
  return new ZeromemError(
    'STORAGE_FAILED',
    `This memory's ${path}-${which} was removed or replaced while this process had it open (a cleaner or a backup tool?): this process takes no more writes, so nothing is acknowledged that could not be kept. Close the memory and open it again; keep the -wal and -shm files with the store file (${path})`,
    { storage: { reason: 'unavailable', path } },
  );
}

/**
 * Before an open: the WAL is not missing while the `-shm` left beside the file says it
 * held commits not yet copied into the file (its header's last frame past the frames
 * checkpointed). Opening then would show the store without them, empty perhaps, without an
 * error. Reads only.
 * @throws ZeromemError STORAGE_FAILED (`corrupt`) saying what is gone
 */
export function checkWalNotLost(path: string): void {
  const shm = `${path}-shm`;
  if (existsSync(`${path}-wal`) || !existsSync(shm)) return;
  const header = Buffer.alloc(104);
  const fd = openSync(shm, 'r');
  let read: number;
  try {
    read = readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  if (read < header.length) return;
  // SQLite's wal-index header (native byte order): isInit at 12, mxFrame at 16, its copy at 48; nBackfill at 96.
  const u32 = (at: number) => (endianness() === 'LE' ? header.readUInt32LE(at) : header.readUInt32BE(at));
  const initialized = header[12] === 1 && header.subarray(0, 48).equals(header.subarray(48, 96));
  const lastFrame = u32(16);
  const checkpointed = u32(96);
  if (!initialized || lastFrame <= checkpointed) return;
  throw new ZeromemError(
    'STORAGE_FAILED',
    `The memory's ${path}-wal is gone while ${shm} says it held ${lastFrame - checkpointed} pages of commits not yet in the store file: opening would show the store without them. Restore the -wal file (from where it was moved, or a backup), or restore the store from a backup or an export; to open it without them, remove ${shm}`,
    { storage: { reason: 'corrupt', path } },
  );
}

/**
 * Makes this process's connections rebuild their index of the WAL from the WAL itself
 * before they next use it (at the checkpoint of the last close): the `-shm` this process
 * mapped was removed, so its index misses the commits of processes that opened the store
 * since, and a checkpoint from it would write older pages over theirs and remove the WAL
 * with their commits. SQLite rebuilds an index whose header is not initialized; this
 * clears both copies of the header in the removed file through the descriptor SQLite
 * holds (`/proc/self/fd`, Linux). Elsewhere it does nothing, and the commits of processes
 * that opened the store after the `-shm` was removed may be lost when this one closes last.
 */
export function dropStaleIndex(path: string): void {
  try {
    const removed = `${join(realpathSync(dirname(path)), basename(path))}-shm (deleted)`;
    for (const fd of readdirSync('/proc/self/fd')) {
      let target: string;
      try {
        target = readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        continue;
      }
      if (target !== removed) continue;
      const handle = openSync(`/proc/self/fd/${fd}`, 'r+');
      try {
        writeSync(handle, Buffer.alloc(96), 0, 96, 0);
      } finally {
        closeSync(handle);
      }
    }
  } catch {
    // No /proc: see above.
  }
}

function identity(file: string): string | undefined {
  try {
    const stat = statSync(file);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return undefined;
  }
}
