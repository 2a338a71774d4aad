// Every export of @zeromem/core but `openMemory`, which each entry takes from its own
// storage engine (index.ts: IndexedDB; index.node.ts: SQLite on disk, IndexedDB only when
// given one), so that Node never loads Dexie for a store on disk. The values are here; the
// types are listed in public/types.ts and defined in public/ (with the few values a public type
// is made of: ZeromemError, ERROR_CODES, EXPORT_FORMAT, EXPORT_VERSION).
export type * from './public/types.ts';
export { Memory } from './memory.ts';
export type { OpenMemoryOptions } from './public/options.ts';
export { isZeromemError } from './model/errors.ts';
export { ZeromemError, ERROR_CODES } from './public/errors.ts';
export { DEFAULT_LIMITS } from './model/limits.ts';
export { systemClock } from './model/clock.ts';
export { namespaceKey } from './model/namespace.ts';
export { parseDuration } from './model/duration.ts';
export { normalizeContent } from './model/content-hash.ts';
export { SOURCES, LAYERS, TIERS } from './model/types.ts';
export { FACT_KEY_RULE, MAX_FACT_KEY_BYTES, isFactKey } from './model/validity.ts';
export { MAX_IN_VALUES, MAX_QUERY_DEPTH, MAX_QUERY_NODES } from './model/metadata-query.ts';
export { toUnitVector } from './embed/embedder.ts';
export { DEFAULT_WEIGHTS } from './rank/ranking.ts';
export { DEFAULT_MIN_RELEVANCE } from './rank/relevance.ts';
export { tokenize } from './search/tokenize.ts';
export { createTokenizer, countChatTokens } from './context/tokenizer.ts';
export { CONTEXT_LAYERS, DEFAULT_BUDGET, DEFAULT_MAX_ITEMS, MAX_BUDGET } from './context/options.ts';
export { Session } from './context/session.ts';
export { DEFAULT_LIFECYCLE } from './lifecycle/policy.ts';
export { DEFAULT_CONSOLIDATE_THRESHOLD } from './lifecycle/consolidate.ts';
export { EXPORT_FORMAT, EXPORT_VERSION } from './public/export-format.ts';
export { MAX_REPORTED_LINES } from './lifecycle/import-jsonl.ts';
export { DETECTORS } from './redact/detectors.ts';
