/**
 * The public types of `@zeromem/core`, in one list (as Dexie keeps `src/public/types`): every
 * type a user of either entry can name, by the file of this folder that defines it (one
 * concept per file, with its TSDoc). The files of `public/` import nothing from the
 * implementation; the implementation imports its public types from them (the layer test,
 * `test/layers.test.ts`, puts `public/` below every folder). The entries' values (classes,
 * functions, constants) are in api.ts; `OpenMemoryOptions` is exported beside `Memory`
 * (public/options.ts), and the Node entry adds its own (public/node-options.ts). The API
 * report (`packages/core/api/core.api.md`, checked by `pnpm run api:check`) is what this
 * surface is held to: a name added or changed here changes the report on purpose.
 */
export type { ErrorCode, ErrorDetails, InputIssue, ItemFailure, LineFailure, StorageProblem } from './errors.ts';
export type { Limits } from './limits.ts';
export type { Clock } from './clock.ts';
export type { Source, Layer, Tier, JsonValue, JsonObject, Namespace, TimeInput, Duration, MemoryRecord } from './memory-record.ts';
export type { RememberInput, SuggestedUpdate, RememberResult, WriteOptions, RememberOptions, LatestVersion, RememberManyOptions, RememberManyResult } from './remember.ts';
export type { UpdatePatch, UpdateOptions } from './update.ts';
export type { RecordFilter, ListOptions, ListPage } from './list.ts';
export type { MetadataCondition, MetadataQuery } from './metadata-query.ts';
export type { ValidityOptions } from './validity.ts';
export type { GetOptions } from './get.ts';
export type { RecordVersion } from './history.ts';
export type { NamespaceStats } from './stats.ts';
export type { AuditOp, AuditEntry, AuditOptions } from './audit.ts';
export type { ProfileEntry, ProfileOptions } from './profile.ts';
export type { WatchListener } from './watch.ts';
export type { ConversationTurn, RecallOptions, RecallExplain, RecallHit, VectorMode, RecallResult } from './recall.ts';
export type { LexicalEvidence, SemanticEvidence, RelevanceEvidence } from './relevance.ts';
export type { TimeWindow, QuerySignals } from './query-signals.ts';
export type { RankingWeights } from './ranking.ts';
export type { EmbedKind, Embedder } from './embedder.ts';
export type { ChatMessage, Tokenizer, Encoding } from './tokenizer.ts';
export type { ContextLayer, LayerQuota, BuildContextOptions, DropReason, IncludedItem, DroppedItem, LayerUsage, ContextReport, BuiltContext } from './context.ts';
export type { SessionOptions, TurnOptions, SessionEndReport } from './session.ts';
export type { LlmUsage, LlmHook, LlmSpend } from './llm-hook.ts';
export type { LifecyclePolicy, LifecycleOptions, RetierOptions, RetierResult } from './lifecycle.ts';
export type { ConsolidateSuggestion, ConsolidateOptions, ConsolidationGroup, ConsolidateResult } from './consolidate.ts';
export type { ExportScope, ExportHeader, ExportLine, ExportOptions } from './export-format.ts';
export type { ImportOptions, ImportResult } from './import.ts';
export type { DetectorName, RedactAction, RedactionOptions, RedactionCount } from './redaction.ts';
