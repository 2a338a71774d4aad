// The Node entry of @zeromem/core: the same API, with memories kept on disk by default
// (Dexie, the IndexedDB engine, is loaded only when an IndexedDB is given: see api.ts).
export * from './api.ts';
export { openMemory, type OpenMemoryOptions } from './open-memory.node.ts';
export { defaultDirectory } from './store/sqlite/default-directory.ts';
export type { MigrationProgress } from './store/sqlite/sqlite-migration-progress.ts';
