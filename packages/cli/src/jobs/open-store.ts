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
  openMemory(options: OpenMemoryOptions & { directory?: string; onMigration?: (progress: MigrationProgress) => void }): Promise<Memory>;
  defaultDirectory(): string;
}

function nodeEntry(): NodeEntry {
  const entry = core as unknown as Partial<NodeEntry>;
  if (typeof entry.defaultDirectory !== 'function') {
    throw new JobError('UNSUPPORTED_ENVIRONMENT', '@zeromem/core was not loaded through its Node entry: run zeromem with node');
  }
  return entry as NodeEntry;
}

/** What core's Node entry says of a migration from an earlier release's file (its `MigrationProgress`). */
interface MigrationProgress {
  path: string;
  state: 'migrating' | 'waiting';
  pid: number;
  done: number;
  total: number;
}

/** Progress of a migration on stderr, at most once a second (and its end): it can take minutes for a large store. */
function migrationOnStderr(): (progress: MigrationProgress) => void {
  let last = 0;
  return ({ path, state, pid, done, total }) => {
    if (done < total && Date.now() - last < 1000) return;
    last = Date.now();
    const who = state === 'migrating' ? 'migrating' : `waiting for process ${pid}, which is migrating`;
    process.stderr.write(`zeromem: ${who} ${path} from an earlier release's format: ${done} of ${total} rows (${Math.floor((done / Math.max(total, 1)) * 100)}%)\n`);
  };
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
    onMigration: migrationOnStderr(),
  });
}
