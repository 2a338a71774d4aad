import { readInput, readInputs } from './model/read-input.ts';
import type { AuditEntry, AuditOptions } from './public/audit.ts';
import type { RecordVersion } from './public/history.ts';
import type { NamespaceStats } from './public/stats.ts';
import type { ProfileEntry, ProfileOptions } from './public/profile.ts';
import type { RememberInput, RememberManyOptions, RememberManyResult, RememberResult, WriteOptions, RememberOptions } from './public/remember.ts';
import type { UpdateOptions, UpdatePatch } from './public/update.ts';
import type { ListOptions, ListPage, RecordFilter } from './public/list.ts';
import type { ValidityOptions } from './public/validity.ts';
import type { MemoryRecord, Namespace } from './public/memory-record.ts';
import type { ConversationTurn, RecallOptions, RecallResult } from './public/recall.ts';
import type { BuildContextOptions, BuiltContext } from './public/context.ts';
import { Session } from './context/session.ts';
import type { SessionOptions } from './public/session.ts';
import type { Tokenizer } from './public/tokenizer.ts';
import { consolidate } from './lifecycle/consolidate.ts';
import type { ConsolidateOptions, ConsolidateResult } from './public/consolidate.ts';
import { exportJsonl } from './lifecycle/export-jsonl.ts';
import type { ExportOptions, ExportScope } from './public/export-format.ts';
import { importJsonl } from './lifecycle/import-jsonl.ts';
import type { ImportOptions, ImportResult } from './public/import.ts';
import { markUsed } from './lifecycle/mark-used.ts';
import { retier } from './lifecycle/retier.ts';
import type { RetierOptions, RetierResult } from './public/lifecycle.ts';
import { audit } from './verbs/audit.ts';
import { buildContext } from './verbs/build-context.ts';
import { count } from './verbs/count.ts';
import { forgetNamespace } from './verbs/forget-namespace.ts';
import { forgetUser } from './verbs/forget-user.ts';
import { forgetWhere } from './verbs/forget-where.ts';
import { forget } from './verbs/forget.ts';
import { get } from './verbs/get.ts';
import type { GetOptions } from './public/get.ts';
import { history } from './verbs/history.ts';
import { list } from './verbs/list.ts';
import { listNamespaces } from './verbs/list-namespaces.ts';
import type { MemoryContext } from './verbs/memory-context.ts';
import { profile } from './verbs/profile.ts';
import { recall } from './verbs/recall.ts';
import { remember, rememberMany } from './verbs/remember.ts';
import { stats } from './verbs/stats.ts';
import { sweep } from './lifecycle/sweep.ts';
import { update } from './verbs/update.ts';
import { watch } from './verbs/watch.ts';
import type { WatchListener } from './public/watch.ts';

/**
 * A memory: durable, namespaced records on this device. Every verb validates its input
 * (a bad one throws a {@link ZeromemError} and writes nothing), names its namespace,
 * and never calls an LLM or the network.
 *
 * A facade: each method reads its arguments once (a data-only copy, model/read-input.ts)
 * and hands them to its verb, whose module holds the verb's whole contract (verbs/,
 * lifecycle/). The services the verbs run on are wired by runtime.ts.
 */
export class Memory {
  readonly #ctx: MemoryContext;

  /** @internal Use {@link openMemory}. */
  constructor(ctx: MemoryContext) {
    this.#ctx = ctx;
  }

  /** The store's name (the `name` it was opened with). */
  get name(): string {
    return this.#ctx.store.name;
  }

  /**
   * Stores a memory; resolves once its transaction committed. An exact duplicate in the namespace
   * returns the existing id with `deduplicated: true` (keeping the higher importance).
   * With `key`, a keyed fact: it closes the version of the key that held (`closed`). Without,
   * and with `suggestUpdates: true`, live memories it may be a new value of come back as
   * `suggestedUpdates` (nothing is closed).
   * @throws ZeromemError INVALID_INPUT, NAMESPACE_REQUIRED, CONFLICT (your `id` holds other content), QUOTA_EXCEEDED
   */
  async remember(input: RememberInput, options?: RememberOptions): Promise<RememberResult> {
    return remember(this.#ctx, ...readInputs(input, options));
  }

  /**
   * Stores many memories atomically: all or nothing, unless `skipInvalid` writes the
   * valid ones and returns the rest as `failures` (by position).
   * @throws ZeromemError INVALID_INPUT listing every bad item in `details.items`
   */
  async rememberMany(inputs: RememberInput[], options?: RememberManyOptions): Promise<RememberManyResult> {
    return rememberMany(this.#ctx, ...readInputs(inputs, options));
  }

  /** The record, or `undefined` when there is none (or it expired). Reading a cold record re-warms it unless `rewarm: false`. */
  async get(namespace: Namespace, id: string, options?: GetOptions): Promise<MemoryRecord | undefined> {
    return get(this.#ctx, ...readInputs(namespace, id, options));
  }

  /**
   * Changes some fields; returns the updated record.
   * @throws ZeromemError NOT_FOUND, CONFLICT (`ifVersion` mismatch or duplicate content), INVALID_INPUT
   */
  async update(namespace: Namespace, id: string, patch: UpdatePatch, options?: UpdateOptions): Promise<MemoryRecord> {
    return update(this.#ctx, ...readInputs(namespace, id, patch, options));
  }

  /**
   * Finds the memories of a namespace that answer `query` (a text, or the conversation so
   * far as `[{ role, content }]`, whose latest user turn weighs most): BM25 and vector candidates,
   * fused, ranked by relevance x importance x recency x heat, each hit with its `explain`.
   * Filters and `layers` restrict; expired records never come back. Recalled records get
   * their access statistics raised (in batches) unless `trackAccess: false`.
   * @throws ZeromemError NAMESPACE_REQUIRED, INVALID_INPUT
   */
  async recall(namespace: Namespace, query: string | ConversationTurn[], options?: RecallOptions): Promise<RecallResult> {
    return recall(this.#ctx, ...readInputs(namespace, query, options));
  }

  /**
   * The context to send to an LLM: system instructions, the session's newest turns and
   * recalled long-term and knowledge memories, within per-layer quotas and a total token
   * budget that the rendered text and chat messages never exceed. The report says what
   * each layer took, what was left out and why, and what the full history would have cost.
   * Makes no LLM call.
   * @throws ZeromemError INVALID_INPUT (bad options, system instructions over the budget), NAMESPACE_REQUIRED
   */
  async buildContext(options: BuildContextOptions): Promise<BuiltContext> {
    return buildContext(this.#ctx, readInput(options));
  }

  /**
   * A conversation helper for agent loops: `addTurn` stores turns (session layer, with a
   * TTL), `context()` builds the next prompt's context, `end()` keeps the durable turns.
   * @throws ZeromemError INVALID_INPUT, NAMESPACE_REQUIRED
   */
  session(options: SessionOptions): Session {
    return new Session(this, this.#ctx.tokenizer, readInput(options, ['llm']), this.#ctx.limits, this.#ctx.clock.now());
  }

  /** The tokenizer contexts are counted with (the one passed to openMemory, or o200k_base). */
  tokenizer(): Promise<Tokenizer> {
    return this.#ctx.tokenizer();
  }

  /** Memories written but not embedded yet (0 without an embedder). */
  pendingEmbeddings(): number {
    return this.#ctx.pendingEmbeddings();
  }

  /**
   * Resolves when every memory is embedded (those written before this instance opened
   * included); rejects with EMBEDDER_UNAVAILABLE if the embedder fails meanwhile.
   */
  async whenEmbedded(): Promise<void> {
    return this.#ctx.whenEmbedded();
  }

  /** A page of records, newest first by default; continue with `nextCursor`. */
  list(namespace: Namespace, options?: ListOptions): Promise<ListPage> {
    return list(this.#ctx, ...readInputs(namespace, options));
  }

  /**
   * The namespaces that hold records, of every user or of one (`{ userId }`), ordered by key.
   * @throws ZeromemError INVALID_INPUT
   */
  listNamespaces(options?: { userId?: string }): Promise<Namespace[]> {
    return listNamespaces(this.#ctx, ...readInputs(options));
  }

  /**
   * The record's earlier versions, oldest first, each with who replaced it and when
   * (`changedBy`, `changedAt`): the last `historyDepth` (default 20) changes; a forget deletes them with the record.
   * @throws ZeromemError NOT_FOUND (no such live record), NAMESPACE_REQUIRED, INVALID_INPUT
   */
  history(namespace: Namespace, id: string): Promise<RecordVersion[]> {
    return history(this.#ctx, ...readInputs(namespace, id));
  }

  /** How many live records match (all without a filter); keyed facts that hold now, or at `asOf` (every version with `includeClosed`). */
  count(namespace: Namespace, filter?: RecordFilter & ValidityOptions): Promise<number> {
    return count(this.#ctx, ...readInputs(namespace, filter));
  }

  /**
   * The namespace's current keyed facts (or those that held at `asOf`), one per key,
   * sorted by key: what the user's profile says now.
   * @throws ZeromemError NAMESPACE_REQUIRED, INVALID_INPUT
   */
  profile(namespace: Namespace, options?: ProfileOptions): Promise<ProfileEntry[]> {
    return profile(this.#ctx, ...readInputs(namespace, options));
  }

  /** Counts, sizes and time span of the namespace. */
  stats(namespace: Namespace): Promise<NamespaceStats> {
    return stats(this.#ctx, readInput(namespace));
  }

  /** Deletes one record (with its vector and index entries); true when a live one was forgotten. */
  async forget(namespace: Namespace, id: string, options?: WriteOptions): Promise<boolean> {
    return forget(this.#ctx, ...readInputs(namespace, id, options));
  }

  /** Deletes the records that match a (non-empty) filter; returns their ids. */
  async forgetWhere(namespace: Namespace, filter: RecordFilter, options?: WriteOptions): Promise<string[]> {
    return forgetWhere(this.#ctx, ...readInputs(namespace, filter, options));
  }

  /** Deletes every record of exactly this namespace; returns how many. */
  async forgetNamespace(namespace: Namespace, options?: WriteOptions): Promise<number> {
    return forgetNamespace(this.#ctx, ...readInputs(namespace, options));
  }

  /** Deletes every record of a user, in all of their namespaces; returns how many. */
  async forgetUser(userId: string, options?: WriteOptions): Promise<number> {
    return forgetUser(this.#ctx, ...readInputs(userId, options));
  }

  /**
   * Merges near-duplicate memories of a namespace (cosine similarity of stored vectors >=
   * `threshold` plus overlapping tags; text equality ignoring case and punctuation for
   * records without a vector). The newest content survives with the highest importance,
   * the union of tags and `mergedFrom`; the rest is forgotten. `dryRun: true` only plans.
   * @throws ZeromemError NAMESPACE_REQUIRED, INVALID_INPUT
   */
  async consolidate(namespace: Namespace, options?: ConsolidateOptions): Promise<ConsolidateResult> {
    return consolidate(this.#ctx, ...readInputs(namespace, options));
  }

  /**
   * Ages records by the clock (one namespace, or all): untouched records' importance decays
   * toward the floor; records untouched for `lifecycle.coldAfter` and below
   * `lifecycle.coldBelowImportance` go cold (recall skips them unless `includeCold`).
   */
  retier(options?: RetierOptions): Promise<RetierResult> {
    return retier(this.#ctx, readInput(options));
  }

  /**
   * Tells memory these records were used (e.g. put into a prompt): their importance rises
   * by `lifecycle.useGain`, they re-warm and count as touched. Unknown ids are skipped.
   * `buildContext` does not call it: the memories a context keeps only count as accessed
   * (heat), as recall hits do; call `markUsed` for those that proved useful.
   * @throws ZeromemError NAMESPACE_REQUIRED, INVALID_INPUT
   */
  markUsed(namespace: Namespace, ids: string[]): Promise<MemoryRecord[]> {
    return markUsed(this.#ctx, ...readInputs(namespace, ids));
  }

  /**
   * Exports a namespace (`{ namespace }`) or a whole user (`{ userId }`) as versioned JSONL:
   * a header line (format, version, scope, record count, vector model), then one line per
   * live record with every field. `vectors: true` includes the current embedder's vectors.
   * @throws ZeromemError NAMESPACE_REQUIRED, INVALID_INPUT
   */
  exportJsonl(scope: ExportScope, options?: ExportOptions): Promise<string> {
    return exportJsonl(this.#ctx, ...readInputs(scope, options));
  }

  /**
   * Imports what `exportJsonl` wrote (the text, or an iterable or async iterable of its
   * lines), losslessly. Every line is validated first; bad lines are INVALID_INPUT listed
   * by number in `details.lines` and nothing is written, unless `skipInvalid: true` writes
   * the good lines and returns the bad ones. Stored content is deduplicated as `remember` does.
   * Carried vectors are stored at unit length (scaled if needed; a zero vector is a bad line).
   * @throws ZeromemError INVALID_INPUT, CONFLICT, QUOTA_EXCEEDED
   */
  async importJsonl(source: string | Iterable<string> | AsyncIterable<string>, options?: ImportOptions): Promise<ImportResult> {
    return importJsonl(this.#ctx, ...readInputs(source, options));
  }

  /** Deletes every expired record now (purged as by a forget); returns how many. */
  async sweep(): Promise<number> {
    return (await sweep(this.#ctx)).length;
  }

  /** The namespace's audit log (no content), oldest first. */
  audit(namespace: Namespace, options?: AuditOptions): Promise<AuditEntry[]> {
    return audit(this.#ctx, ...readInputs(namespace, options));
  }

  /**
   * Watches a list: `listener` gets the page now and after every change to it, from this
   * or any other instance or tab on the same database. Returns the function that stops it.
   * @throws ZeromemError NAMESPACE_REQUIRED or INVALID_INPUT (bad options or listener), synchronously
   */
  watch(namespace: Namespace, options: ListOptions | undefined, listener: WatchListener | ((page: ListPage) => void)): () => void {
    return watch(this.#ctx, ...readInputs(namespace, options, listener));
  }

  /** Writes pending access statistics, stops background work and closes the database. Later calls fail with CLOSED. */
  async close(): Promise<void> {
    return this.#ctx.close();
  }
}
