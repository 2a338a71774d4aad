// Every export of @zeromem/core but `openMemory`, which each entry takes from its own
// storage engine (index.ts: IndexedDB; index.node.ts: SQLite on disk, IndexedDB only when
// given one), so that Node never loads Dexie for a store on disk.
export { Memory } from './memory.ts';
export type { OpenMemoryOptions } from './memory-options.ts';
export { ZeromemError, isZeromemError, ERROR_CODES, type ErrorCode, type ErrorDetails, type InputIssue, type ItemFailure, type LineFailure, type StorageProblem } from './model/errors.ts';
export { DEFAULT_LIMITS, type Limits } from './model/limits.ts';
export { systemClock, type Clock } from './model/clock.ts';
export { namespaceKey } from './model/namespace.ts';
export { parseDuration } from './model/duration.ts';
export { normalizeContent } from './model/content-hash.ts';
export type { WatchListener } from './verbs/watch.ts';
export {
  SOURCES,
  LAYERS,
  TIERS,
  type Source,
  type Layer,
  type Tier,
  type JsonValue,
  type JsonObject,
  type Namespace,
  type TimeInput,
  type Duration,
  type MemoryRecord,
  type RememberInput,
  type UpdatePatch,
  type RecordFilter,
  type ListOptions,
  type ListPage,
  type RememberResult,
  type WriteOptions,
  type RememberOptions,
  type LatestVersion,
  type RememberManyOptions,
  type RememberManyResult,
  type UpdateOptions,
  type NamespaceStats,
  type AuditOp,
  type AuditEntry,
  type RecordVersion,
  type ValidityOptions,
  type ProfileEntry,
  type SuggestedUpdate,
} from './model/types.ts';
export type { ProfileOptions } from './verbs/profile.ts';
export { FACT_KEY_RULE, MAX_FACT_KEY_BYTES, isFactKey } from './model/validity.ts';
export { MAX_IN_VALUES, MAX_QUERY_DEPTH, MAX_QUERY_NODES, type MetadataCondition, type MetadataQuery } from './model/metadata-query.ts';
export type { GetOptions } from './verbs/get.ts';
export type { AuditOptions } from './verbs/audit.ts';
export type { Embedder, EmbedKind } from './embed/embedder.ts';
export { toUnitVector } from './embed/embedder.ts';
export type { RecallExplain, RecallHit, RecallOptions, RecallResult, VectorMode } from './verbs/recall.ts';
export type { ConversationTurn } from './rank/validate-recall.ts';
export { DEFAULT_WEIGHTS, type RankingWeights } from './rank/ranking.ts';
export { DEFAULT_MIN_RELEVANCE, type LexicalEvidence, type RelevanceEvidence, type SemanticEvidence } from './rank/relevance.ts';
export type { QuerySignals } from './rank/query-signals.ts';
export type { TimeWindow } from './rank/time-expressions.ts';
export { tokenize } from './index/tokenize.ts';
export { createTokenizer, countChatTokens, type Tokenizer, type Encoding, type ChatMessage } from './context/tokenizer.ts';
export { CONTEXT_LAYERS, DEFAULT_BUDGET, DEFAULT_MAX_ITEMS, MAX_BUDGET, type BuildContextOptions, type ContextLayer, type LayerQuota } from './context/options.ts';
export type { BuiltContext, ContextReport, DropReason, DroppedItem, IncludedItem, LayerUsage } from './context/report.ts';
export { Session, type SessionOptions, type SessionEndReport, type TurnOptions } from './context/session.ts';
export type { LlmHook, LlmSpend, LlmUsage } from './context/llm-hook.ts';
export { DEFAULT_LIFECYCLE, type LifecycleOptions, type LifecyclePolicy } from './lifecycle/policy.ts';
export { DEFAULT_CONSOLIDATE_THRESHOLD, type ConsolidateOptions, type ConsolidateResult, type ConsolidationGroup } from './lifecycle/consolidate.ts';
export type { ConsolidateSuggestion } from './lifecycle/suggest-updates.ts';
export type { RetierOptions, RetierResult } from './lifecycle/retier.ts';
export type { ExportOptions } from './lifecycle/export-jsonl.ts';
export { EXPORT_FORMAT, EXPORT_VERSION, type ExportHeader, type ExportLine, type ExportScope } from './lifecycle/jsonl-format.ts';
export type { ImportOptions, ImportResult } from './lifecycle/import-jsonl.ts';
export { MAX_REPORTED_LINES } from './lifecycle/import-jsonl.ts';
export { DETECTORS, type DetectorName } from './redact/detectors.ts';
export type { RedactAction, RedactionOptions } from './redact/redactor.ts';
export type { RedactionCount } from './model/types.ts';
