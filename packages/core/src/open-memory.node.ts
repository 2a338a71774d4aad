import type { Memory } from './memory.ts';
import type { OpenMemoryOptions as BaseOpenMemoryOptions } from './public/options.ts';
import { openMemoryOnStore } from './runtime.ts';
import { describe } from './model/checks.ts';
import { invalidInput } from './model/errors.ts';
import { defaultDirectory } from './store/sqlite/default-directory.ts';
import type { MigrationProgress, OpenMemoryOptions } from './public/node-options.ts';
import { openSqliteStore } from './store/sqlite/sqlite-engine.ts';

/**
 * Opens (creating if needed) a memory and resolves once it is ready. In Node its memories
 * are kept on disk and survive restarts: one SQLite file per `name` in `directory`
 * (see {@link OpenMemoryOptions.directory}); a write resolves once it is committed to the
 * file. Many processes can open the same store at once (MCP servers, `zeromem serve`,
 * scripts): what one acknowledged, the others read at once. An IndexedDB passed as `{ indexedDB, IDBKeyRange }`
 * (e.g. fake-indexeddb for tests), or a global `indexedDB` (as `fake-indexeddb/auto`
 * installs) when no `directory` is given, is used instead, in memory as before.
 *
 * @example
 * import { openMemory } from '@zeromem/core';
 *
 * const memory = await openMemory({ name: 'my-agent' }); // ~/.zeromem/my-agent.sqlite
 * await memory.remember({ namespace: { userId: 'u1' }, content: 'Prefers phone calls' });
 * console.log(await memory.count({ userId: 'u1' })); // 1
 * await memory.close();
 * @throws ZeromemError INVALID_INPUT (bad options), STORAGE_FAILED (the store cannot be opened: `details.storage` says why and which file), UNSUPPORTED_ENVIRONMENT
 */
export async function openMemory(options: OpenMemoryOptions = {}): Promise<Memory> {
  if (options === null || typeof options !== 'object') return openIndexedDBMemory(options); // its INVALID_INPUT
  const { directory, onMigration, ...rest } = options;
  if (onMigration !== undefined && typeof onMigration !== 'function') {
    throw invalidInput('openMemory options', [{ path: 'onMigration', message: `must be a function, got ${describe(onMigration)}` }]);
  }
  if (directory === undefined) {
    // An IndexedDB given or installed globally is used as on every other platform.
    if (rest.indexedDB !== undefined || typeof indexedDB !== 'undefined') return openIndexedDBMemory(rest);
    return onDisk(rest, defaultDirectory(), onMigration);
  }
  if (typeof directory !== 'string' || directory.trim() === '') {
    throw invalidInput('openMemory options', [{ path: 'directory', message: `must be a path to a directory, got ${describe(directory)}` }]);
  }
  if (rest.indexedDB !== undefined || rest.IDBKeyRange !== undefined) {
    throw invalidInput('openMemory options', [{ path: 'directory', message: 'give either a directory (stored on disk) or an indexedDB, not both' }]);
  }
  return onDisk(rest, directory, onMigration);
}

/**
 * A memory on the Dexie engine, with the IndexedDB given or installed globally. Dexie is
 * imported only then: a store on disk never needs it (13 MB and ~0.2 s of a start).
 */
function openIndexedDBMemory(options: BaseOpenMemoryOptions): Promise<Memory> {
  return openMemoryOnStore(options, async (name, checked) => (await import('./store/dexie/dexie-store.ts')).openDexieStore(name, checked));
}

/** A memory on the SQLite engine (sqlite-engine.ts): its file in `directory`. */
function onDisk(options: BaseOpenMemoryOptions, directory: string, onMigration: OpenMemoryOptions['onMigration']): Promise<Memory> {
  return openMemoryOnStore(options, (name, checked) =>
    openSqliteStore(directory, name, { durability: checked.durability ?? 'default', ...(onMigration ? { onMigration } : {}) }),
  );
}

