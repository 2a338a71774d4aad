/**
 * The public types of `@zeromem/core`, in one place (as Dexie keeps `src/public/types`): every
 * type a user of either entry can name, by the module that defines it. The entries' values
 * (classes, functions, constants) are in api.ts; `OpenMemoryOptions` is exported beside `Memory`
 * (from memory-options.ts, a top-level file), and the Node entry adds its own (index.node.ts). The API
 * report (`packages/core/api/core.api.md`, checked by `pnpm run api:check`) is what this
 * surface is held to: a name added or changed here changes the report on purpose.
 */
export type { ErrorCode, ErrorDetails, InputIssue, ItemFailure, LineFailure, StorageProblem } from './errors.ts';
export type { Limits } from './limits.ts';
export type { Clock } from './clock.ts';
export type { NamespaceStats } from './stats.ts';
export type { AuditOp, AuditEntry } from './audit.ts';
export type { RecordVersion } from './history.ts';
export type { ProfileEntry } from './profile.ts';
export type { RememberInput, RememberResult, WriteOptions, RememberOptions, LatestVersion, RememberManyOptions, RememberManyResult, SuggestedUpdate } from './remember.ts';
export type { UpdatePatch, UpdateOptions } from './update.ts';
export type { RedactionCount } from './redaction.ts';
export type { RecordFilter, ListOptions, ListPage } from './list.ts';
export type { ValidityOptions } from './validity.ts';
export type { Source, Layer, Tier, JsonValue, JsonObject, Namespace, TimeInput, Duration, MemoryRecord } from './memory-record.ts';
export type { MetadataCondition, MetadataQuery } from './metadata-query.ts';
export type { WatchListener } from './watch.ts';
export type { ProfileOptions } from './profile.ts';
export type { GetOptions } from './get.ts';
export type { AuditOptions } from './audit.ts';
export type { RecallExplain, RecallHit, RecallOptions, RecallResult, VectorMode } from './recall.ts';
export type { Embedder, EmbedKind } from './embedder.ts';
export type { ConversationTurn } from './recall.ts';
export type { RankingWeights } from './ranking.ts';
export type { LexicalEvidence, RelevanceEvidence, SemanticEvidence } from './relevance.ts';
export type { QuerySignals } from './query-signals.ts';
export type { TimeWindow } from './query-signals.ts';
export type { Tokenizer, Encoding, ChatMessage } from './tokenizer.ts';
export type { BuildContextOptions, ContextLayer, LayerQuota } from './context.ts';
export type { BuiltContext, ContextReport, DropReason, DroppedItem, IncludedItem, LayerUsage } from './context.ts';
export type { SessionOptions, SessionEndReport, TurnOptions } from './session.ts';
export type { LlmHook, LlmSpend, LlmUsage } from './llm-hook.ts';
export type { LifecycleOptions, LifecyclePolicy } from './lifecycle.ts';
export type { ConsolidateOptions, ConsolidateResult, ConsolidationGroup } from './consolidate.ts';
export type { ConsolidateSuggestion } from './consolidate.ts';
export type { RetierOptions, RetierResult } from './lifecycle.ts';
export type { ExportOptions } from './export-format.ts';
export type { ExportHeader, ExportLine, ExportScope } from './export-format.ts';
export type { ImportOptions, ImportResult } from './import.ts';
export type { DetectorName } from './redaction.ts';
export type { RedactAction, RedactionOptions } from './redaction.ts';
