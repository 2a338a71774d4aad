import { resolve } from 'node:path';
import * as core from '@zeromem/core';
import type { Embedder, Memory, OpenMemoryOptions } from '@zeromem/core';
import { JobError, invalidArgument } from './job-error.ts';

/**
 * What `@zeromem/core`'s Node entry adds (its "node" export condition, which node
 * resolves): the store on disk. The workspace's type check reads the shared entry, so
 * they are named here.
 */
interface NodeEntry {
  openMemory(options: OpenMemoryOptions & { directory?: string }): Promise<Memory>;
  defaultDirectory(): string;
}

function nodeEntry(): NodeEntry {
  const entry = core as unknown as Partial<NodeEntry>;
  if (typeof entry.defaultDirectory !== 'function') {
    throw new JobError('UNSUPPORTED_ENVIRONMENT', '@zeromem/core was not loaded through its Node entry: run zeromem with node');
  }
  return entry as NodeEntry;
}

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
  return { directory: resolve(values.dir ?? nodeEntry().defaultDirectory()), name: values.name ?? 'zeromem' };
}

/**
 * Opens the durable Node store (one SQLite file, shared with the other processes that have
 * it open: their writes take turns). Background errors of the memory
 * (the embedder) go to `onBackgroundError` instead of crashing the process.
 */
export function openStore(store: StoreChoice, options: { embedder?: Embedder; onBackgroundError?: (err: Error) => void } = {}): Promise<Memory> {
  return nodeEntry().openMemory({
    name: store.name,
    directory: store.directory,
    ...(options.embedder ? { embedder: options.embedder } : {}),
    onBackgroundError: options.onBackgroundError ?? (() => {}),
  });
}
