// The Node entry of @zeromem/core: the same API, with memories kept on disk by default
// (Dexie, the IndexedDB engine, is loaded only when an IndexedDB is given: see api.ts).
export * from './api.ts';
export { openMemory, type OpenMemoryOptions } from './node-store/open-memory.ts';
export { defaultDirectory } from './node-store/default-directory.ts';
export type { MigrationProgress } from './node-store/sqlite-migration-progress.ts';
