// The Node entry of @zeromem/core: the same API, with memories kept on disk by default
// (Dexie, the IndexedDB engine, is loaded only when an IndexedDB is given: see api.ts).
export * from './api.ts';
export { openMemory } from './open-memory.node.ts';
export type { OpenMemoryOptions } from './public/node-options.ts';
export { defaultDirectory } from './store/sqlite/default-directory.ts';
export type { MigrationProgress } from './public/node-options.ts';
