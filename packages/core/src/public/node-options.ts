// `openMemory`'s options in Node (the Node entry): a directory on disk, and the progress of a
// one-time migration.

import type { OpenMemoryOptions as BaseOpenMemoryOptions } from './options.ts';

/** What an opener hears of a migration: this process's, or another's it waits for. */
export interface MigrationProgress {
  /** The store file. */
  path: string;
  /** `migrating`: this process migrates the file; `waiting`: another process (`pid`) does, and this one waits for it. */
  state: 'migrating' | 'waiting';
  pid: number;
  /** Rows of the old tables copied so far, and in all. */
  done: number;
  total: number;
}

/** Options of {@link openMemory} in Node: those of every platform, plus where the memories are stored. */
export interface OpenMemoryOptions extends BaseOpenMemoryOptions {
  /**
   * Node: the directory the memory's file (`<name>.sqlite`) is kept in. Default:
   * `$ZEROMEM_HOME`, else `~/.zeromem`. Not together with `indexedDB`.
   */
  directory?: string;
  /**
   * Node: hears how far the one-time migration of a store file written by a release before
   * the SQLite engine has come (about 4,000 records a second): this process's own, or
   * another process's that this open waits for (as long as that one makes progress).
   */
  onMigration?: (progress: MigrationProgress) => void;
}
