export { openMemory, Memory, type OpenMemoryOptions } from './memory.ts';
export { ZeromemError, isZeromemError, ERROR_CODES, type ErrorCode, type ErrorDetails, type InputIssue, type ItemFailure } from './model/errors.ts';
export { DEFAULT_LIMITS, type Limits } from './model/limits.ts';
export { systemClock, type Clock } from './model/clock.ts';
export { namespaceKey } from './model/namespace.ts';
export { parseDuration } from './model/duration.ts';
export { normalizeContent } from './model/content-hash.ts';
export type { WatchListener } from './verbs/watch.ts';
export * from './model/types.ts';
