import { resolve } from 'node:path';
import { defaultDirectory, openMemory, type Embedder, type Memory } from '@zeromem/core';
import { invalidArgument } from './job-error.ts';

/** Which durable store a job works on. */
export interface StoreChoice {
  /** The directory of the store's file: `--dir`, else `$ZEROMEM_HOME`, else `~/.zeromem`. */
  directory: string;
  /** The store's name (`<name>.sqlite`): `--name`, default `zeromem`. */
  name: string;
}

/** Reads `--dir` and `--name`. */
export function storeChoice(values: { dir?: string | undefined; name?: string | undefined }): StoreChoice {
  if (values.dir !== undefined && values.dir.trim() === '') throw invalidArgument('--dir must be a directory');
  if (values.name !== undefined && values.name.trim() === '') throw invalidArgument('--name must not be empty');
  return { directory: resolve(values.dir ?? defaultDirectory()), name: values.name ?? 'zeromem' };
}

/**
 * Opens the durable Node store (one SQLite file, an exclusive lock: a second job on the
 * same store gets STORAGE_FAILED, reason "locked"). Background errors of the memory
 * (the embedder) go to `onBackgroundError` instead of crashing the process.
 */
export function openStore(store: StoreChoice, options: { embedder?: Embedder; onBackgroundError?: (err: Error) => void } = {}): Promise<Memory> {
  return openMemory({
    name: store.name,
    directory: store.directory,
    ...(options.embedder ? { embedder: options.embedder } : {}),
    onBackgroundError: options.onBackgroundError ?? (() => {}),
  });
}
