// The Node entry of @zeromem/core: the same API, with memories kept on disk by default.
export * from './index.ts';
export { openMemory, type OpenMemoryOptions } from './node-store/open-memory.ts';
export { defaultDirectory } from './node-store/default-directory.ts';
export type { MigrationProgress } from './node-store/sqlite-migration-progress.ts';
