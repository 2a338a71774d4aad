import type { Memory } from './memory.ts';
import type { OpenMemoryOptions } from './public/options.ts';
import { openMemoryOnStore } from './runtime.ts';
import { openDexieStore } from './store/dexie/dexie-store.ts';

/**
 * Opens (creating if needed) a memory backed by IndexedDB and resolves once it is ready.
 *
 * @example
 * import { openMemory } from '@zeromem/core';
 *
 * const memory = await openMemory({ name: 'my-agent' });
 * const { record } = await memory.remember({ namespace: { userId: 'u1' }, content: 'Prefers phone calls' });
 * console.log(record.layer, record.version); // long_term 1
 * await memory.close();
 * @throws ZeromemError INVALID_INPUT (bad options), STORAGE_FAILED (no IndexedDB, or it cannot be opened)
 */
export async function openMemory(options: OpenMemoryOptions = {}): Promise<Memory> {
  return openMemoryOnStore(options, openDexieStore);
}
