import type { Embedder } from './embed/embedder.ts';
import { backfillVectors } from './embed/backfill.ts';
import { EmbedQueue, type EmbedJob } from './embed/embed-queue.ts';
import { IndexManager, type IndexSnapshotOptions } from './index/index-manager.ts';
import { systemClock, type Clock } from './model/clock.ts';
import { IssueList, checkKnownKeys, checkName, describe, isPlainObject } from './model/checks.ts';
import { ZeromemError, invalidInput } from './model/errors.ts';
import { createUlidGenerator } from './model/ids.ts';
import { probe, readInput, readInputs } from './model/read-input.ts';
import { DEFAULT_LIMITS, type Limits } from './model/limits.ts';
import type {
  ApplyReplicatedResult,
  AuditEntry,
  ListOptions,
  ListPage,
  MemoryRecord,
  Namespace,
  RecordVersion,
  NamespaceStats,
  RecordFilter,
  ProfileEntry,
  ValidityOptions,
  RememberInput,
  RememberManyOptions,
  RememberManyResult,
  RememberResult,
  ReplicatedChange,
  UpdateOptions,
  UpdatePatch,
  WriteOptions,
  RememberOptions,
} from './model/types.ts';
import type { DatabaseOptions } from './store/database.ts';
import type { StoragePort } from './store/port.ts';
import { AccessTracker } from './rank/access-tracker.ts';
import { applyReplicated } from './verbs/apply-replicated.ts';
import { audit, type AuditOptions } from './verbs/audit.ts';
import { count } from './verbs/count.ts';
import { forgetNamespace } from './verbs/forget-namespace.ts';
import { forgetUser } from './verbs/forget-user.ts';
import { forgetWhere } from './verbs/forget-where.ts';
import { forget } from './verbs/forget.ts';
import { get, type GetOptions } from './verbs/get.ts';
import { list } from './verbs/list.ts';
import { profile, type ProfileOptions } from './verbs/profile.ts';
import { listNamespaces } from './verbs/list-namespaces.ts';
import { history } from './verbs/history.ts';
import { recall, type RecallOptions, type RecallResult } from './verbs/recall.ts';
import type { ConversationTurn } from './rank/validate-recall.ts';
import { remember, rememberMany } from './verbs/remember.ts';
import { stats } from './verbs/stats.ts';
import { sweep } from './verbs/sweep.ts';
import { update } from './verbs/update.ts';
import { readOptions, type VerbContext } from './write/context.ts';
import { watch, type WatchListener } from './verbs/watch.ts';
import { buildContext } from './context/assemble.ts';
import type { BuildContextOptions } from './context/options.ts';
import type { BuiltContext } from './context/report.ts';
import { Session, type SessionOptions } from './context/session.ts';
import type { ContextSource } from './context/source.ts';
import { countAccess } from './verbs/count-access.ts';
import { createTokenizer, isTokenizer, type Tokenizer } from './context/tokenizer.ts';
import { HistoryCounts } from './context/history-counts.ts';
import { RecordCopies } from './write/record-copies.ts';
import { consolidate, type ConsolidateOptions, type ConsolidateResult } from './lifecycle/consolidate.ts';
import type { LifecycleContext } from './lifecycle/lifecycle-context.ts';
import { markUsed } from './lifecycle/mark-used.ts';
import { suggestUpdates } from './lifecycle/suggest-updates.ts';
import { exportJsonl, type ExportOptions } from './lifecycle/export-jsonl.ts';
import { importJsonl, type ImportOptions, type ImportResult } from './lifecycle/import-jsonl.ts';
import type { ExportScope } from './lifecycle/jsonl-format.ts';
import { checkLifecycle, type LifecycleOptions } from './lifecycle/policy.ts';
import { retier, type RetierOptions, type RetierResult } from './lifecycle/retier.ts';
import { rewarmHits, rewarmRead } from './lifecycle/rewarm.ts';
import { namespaceKey, requireNamespace } from './model/namespace.ts';
import { historyInternals, memoryInternals } from './internals.ts';
import { DEFAULT_HISTORY_DEPTH, MAX_HISTORY_DEPTH } from './store/history.ts';
import { checkRedaction, type RedactionOptions } from './redact/redactor.ts';
import { maskingSource } from './context/mask-context.ts';
import { docLogOf, registerReplica, type ReplicaApplyOptions } from './replica.ts';

/** Options of {@link openMemory}. Everything is optional. */
export interface OpenMemoryOptions extends DatabaseOptions {
  /** IndexedDB database name. Default `"zeromem"`. Two memories with one name share the data (like two tabs). */
  name?: string;
  /** Where time comes from. Default: the wall clock. */
  clock?: Clock;
  /** Size limits; unspecified ones keep their defaults. */
  limits?: Partial<Limits>;
  /** Who acts, for the audit log, unless a call says otherwise. Default `"local"`. */
  actor?: string;
  /** Run `sweep()` this often (ms). Default: never (call `sweep()` yourself). */
  sweepEveryMs?: number;
  /**
   * Receives errors of background work: the sweep timer, access counts after a recall,
   * embeddings, index snapshots. Default: the first error of each code is a warning
   * (`process.emitWarning` in Node, `console.warn` elsewhere) and the work goes on; the
   * process is never ended by it.
   */
  onBackgroundError?: (err: ZeromemError) => void;
  /**
   * Embeds memories on the device for semantic recall (e.g. from `@zeromem/embed-transformers`).
   * Without one, recall is lexical (BM25) only.
   */
  embedder?: Embedder;
  /**
   * Search-index snapshots: a namespace of `minRecords` (default 2,000) or more has its
   * search index stored after it is built, `delayMs` (default 5,000) after enough changes,
   * and on `close()`, so the next open restores it instead of re-reading every memory.
   * `false` turns them off (every open rebuilds from the memories).
   */
  indexSnapshots?: IndexSnapshotOptions | false;
  /** Counts the tokens of built contexts. Default: OpenAI's `o200k_base` BPE (see {@link createTokenizer}), loaded on first use. */
  tokenizer?: Tokenizer;
  /** How records age: importance decay, use gain, when they go cold. See {@link LifecycleOptions}. */
  lifecycle?: LifecycleOptions;
  /**
   * Earlier versions each record keeps for `history()` (0 to 1000, default 20). An update
   * keeps the replaced content there until the record is forgotten; 0 keeps none, so an
   * update erases the old content at once.
   */
  historyDepth?: number;
  /**
   * Redaction of personal data on every `remember`, `rememberMany` and `update`, on the
   * device and without an LLM: e-mail addresses, phone numbers, payment cards, IBANs,
   * Chinese resident IDs and your own patterns, each masked, hashed (keyed), rejected, or
   * masked only in built contexts. See {@link RedactionOptions}. Default: off. `limits`
   * apply to the redacted form: a write that only fits before redaction is INVALID_INPUT.
   */
  redaction?: RedactionOptions;
}

/** Options that are providers or host objects: used as given, not copied (their methods may rely on `this`). */
const PROVIDER_FIELDS = ['clock', 'embedder', 'tokenizer', 'indexedDB', 'IDBKeyRange'];
const OPTION_FIELDS = ['name', 'clock', 'limits', 'actor', 'sweepEveryMs', 'onBackgroundError', 'indexedDB', 'IDBKeyRange', 'durability', 'embedder', 'indexSnapshots', 'tokenizer', 'lifecycle', 'historyDepth', 'redaction'] as const;

/**
 * Opens the store a memory is kept in: given the memory's name and its options, both
 * validated. Each storage engine has one (the Dexie engine's is open-memory.ts's, the SQLite engine's node-store/open-memory.ts's).
 */
export type StoreOpener = (name: string, options: OpenMemoryOptions) => Promise<StoragePort>;

/**
 * @internal {@link openMemory} over any storage engine: validates the options (bad ones
 * are INVALID_INPUT and nothing is opened), then opens the store with `openStore` and the
 * memory on it. For core's own entries (the Node entry's `openMemory`), not applications.
 */
export async function openMemoryOnStore(options: OpenMemoryOptions, openStore: StoreOpener): Promise<Memory> {
  options = readInput(options, PROVIDER_FIELDS);
  const issues = new IssueList();
  const raw: unknown = options;
  if (!isPlainObject(raw)) {
    issues.add('', `must be an object, got ${describe(raw)}`);
    throw invalidInput('openMemory options', issues.items);
  }
  checkKnownKeys(raw, OPTION_FIELDS, '', issues);
  const name = options.name === undefined ? 'zeromem' : checkName(options.name, 'name', 256, issues);
  const actor = options.actor === undefined ? 'local' : checkName(options.actor, 'actor', DEFAULT_LIMITS.maxNameLength, issues);
  const limits = checkLimits(options.limits, issues);
  const lifecycle = checkLifecycle(options.lifecycle, issues);
  if (options.clock !== undefined && !probe(() => typeof options.clock?.now === 'function')) issues.add('clock', 'must be an object with a now() method');
  if (options.sweepEveryMs !== undefined && !(typeof options.sweepEveryMs === 'number' && options.sweepEveryMs >= 10 && Number.isFinite(options.sweepEveryMs))) {
    issues.add('sweepEveryMs', 'must be a number of milliseconds, 10 or more');
  }
  if (options.onBackgroundError !== undefined && typeof options.onBackgroundError !== 'function') {
    // Checked now: a bad one would only fail inside a timer, when an error is already being reported.
    issues.add('onBackgroundError', 'must be a function that receives a ZeromemError');
  }
  if (options.durability !== undefined && !(['default', 'strict', 'relaxed'] as unknown[]).includes(options.durability)) {
    issues.add('durability', 'must be "default", "strict" or "relaxed"');
  }
  checkIndexSnapshots(options.indexSnapshots, issues);
  const redactor = checkRedaction(options.redaction, limits, issues);
  const historyDepth = options.historyDepth === undefined ? DEFAULT_HISTORY_DEPTH : options.historyDepth;
  if (!(Number.isInteger(historyDepth) && historyDepth >= 0 && historyDepth <= MAX_HISTORY_DEPTH)) {
    issues.add('historyDepth', `must be a whole number from 0 to ${MAX_HISTORY_DEPTH}, got ${describe(options.historyDepth)}`);
  }
  const embedder: unknown = options.embedder;
  if (
    embedder !== undefined &&
    !probe(
      () =>
      typeof embedder === 'object' &&
      embedder !== null &&
      typeof (embedder as Embedder).modelId === 'string' &&
      Number.isInteger((embedder as Embedder).dimension) &&
      (embedder as Embedder).dimension > 0 &&
      typeof (embedder as Embedder).embed === 'function',
    )
  ) {
    issues.add('embedder', 'must be an Embedder: { modelId: string, dimension: positive integer, embed(texts, kind) }');
  }
  if (options.tokenizer !== undefined && !probe(() => isTokenizer(options.tokenizer))) {
    issues.add('tokenizer', 'must be a Tokenizer: { id: string, count(text), truncate(text, maxTokens) }');
  }
  if (!issues.ok) throw invalidInput('openMemory options', issues.items);
  if (!globalThis.crypto?.subtle) {
    // Content hashes use WebCrypto, which browsers only expose in secure contexts.
    throw new ZeromemError('UNSUPPORTED_ENVIRONMENT', 'zeromem needs WebCrypto (crypto.subtle): serve the page over https or from localhost.');
  }
  const store = await openStore(name!, options);
  const ctx: VerbContext = { store, clock: options.clock ?? systemClock, limits, actor: actor!, newId: createUlidGenerator(), historyDepth, redactor };
  return new Memory(ctx, {
    lifecycle,
    sweepEveryMs: options.sweepEveryMs,
    onBackgroundError: options.onBackgroundError,
    embedder: options.embedder,
    indexSnapshots: options.indexSnapshots,
    tokenizer: options.tokenizer,
  });
}

function checkIndexSnapshots(value: unknown, issues: IssueList): void {
  if (value === undefined || value === false) return;
  if (!isPlainObject(value)) {
    issues.add('indexSnapshots', `must be false or an object { minRecords?, delayMs? }, got ${describe(value)}`);
    return;
  }
  checkKnownKeys(value, ['minRecords', 'delayMs'], 'indexSnapshots', issues);
  const { minRecords, delayMs } = value as IndexSnapshotOptions;
  if (minRecords !== undefined && !(Number.isInteger(minRecords) && minRecords >= 1)) issues.add('indexSnapshots.minRecords', 'must be a whole number, 1 or more');
  if (delayMs !== undefined && !(typeof delayMs === 'number' && delayMs >= 0 && Number.isFinite(delayMs))) {
    issues.add('indexSnapshots.delayMs', 'must be a number of milliseconds, 0 or more');
  }
}

function checkLimits(value: unknown, issues: IssueList): Limits {
  if (value === undefined) return { ...DEFAULT_LIMITS };
  if (!isPlainObject(value)) {
    issues.add('limits', 'must be an object of numbers');
    return { ...DEFAULT_LIMITS };
  }
  checkKnownKeys(value, Object.keys(DEFAULT_LIMITS), 'limits', issues);
  const limits = { ...DEFAULT_LIMITS };
  for (const [key, limit] of Object.entries(value)) {
    if (!(key in limits)) continue;
    if (typeof limit !== 'number' || !(limit >= 1) || (!Number.isInteger(limit) && limit !== Number.POSITIVE_INFINITY)) {
      issues.add(`limits.${key}`, `must be a whole number, 1 or more, got ${describe(limit)}`);
    } else limits[key as keyof Limits] = limit;
  }
  return limits;
}

/**
 * A memory: durable, namespaced records on this device. Every verb validates its input
 * (a bad one throws a {@link ZeromemError} and writes nothing), names its namespace,
 * and never calls an LLM or the network.
 */
export class Memory {
  readonly #ctx: LifecycleContext;
  readonly #timer: ReturnType<typeof setInterval> | undefined;
  readonly #queue: EmbedQueue | undefined;
  /** The search for stored memories without a vector, started by the constructor. */
  readonly #backfill: Promise<void> = Promise.resolve();
  #tokenizer: Promise<Tokenizer> | undefined;
  readonly #history: HistoryCounts;
  #closed = false;
  /** Hands a background failure to `onBackgroundError` (see the constructor). */
  readonly #report: (err: unknown) => void;
  readonly #listensForErrors: boolean;

  /** @internal Use {@link openMemory}. */
  constructor(
    ctx: VerbContext,
    options: {
      lifecycle: LifecycleContext['lifecycle'];
      sweepEveryMs?: number | undefined;
      onBackgroundError?: ((err: ZeromemError) => void) | undefined;
      embedder?: Embedder | undefined;
      indexSnapshots?: IndexSnapshotOptions | false | undefined;
      tokenizer?: Tokenizer | undefined;
    },
  ) {
    if (options.tokenizer) this.#tokenizer = Promise.resolve(options.tokenizer);
    const warn = warnOnce();
    const report = (err: unknown) => {
      if ((err as ZeromemError).code === 'CLOSED') return; // closed while background work ran: nothing to do
      if (options.onBackgroundError) options.onBackgroundError(err as ZeromemError);
      // Nobody listens: a warning, never an uncaught error (work the caller did not ask for must not end its process).
      else warn(err);
    };
    this.#report = report;
    this.#listensForErrors = options.onBackgroundError !== undefined;
    const embedder = options.embedder;
    const indexes = new IndexManager(ctx.store, () => embedder?.modelId, (jobs) => this.#queue?.enqueue(jobs), {
      snapshots: options.indexSnapshots ?? {},
      onError: report,
    });
    if (embedder) {
      this.#queue = new EmbedQueue(
        ctx.store,
        embedder,
        (done) => {
          indexes.vectorsStored(done);
        },
        report,
      );
      // Records stored without this model's vector (new model, earlier close) get one in the background.
      const queue = this.#queue;
      this.#backfill = backfillVectors(ctx.store, embedder.modelId, (jobs) => queue.enqueue(jobs), () => this.#closed).then(
        () => undefined,
        report,
      );
    }
    this.#history = new HistoryCounts(ctx.store, ctx.clock);
    historyInternals.set(this, this.#history);
    // What this process holds of records besides their rows: every verb that deletes or replaces records purges it.
    const copies = new RecordCopies({ queue: () => this.#queue, tokenizer: () => this.#tokenizer, history: this.#history, indexes });
    this.#ctx = { ...ctx, indexes, embedder, access: new AccessTracker(ctx.store, report), copies, lifecycle: options.lifecycle };
    memoryInternals.set(this, this.#ctx);
    registerReplica(this, {
      apply: (namespace, changes, replicaOptions) => this.#applyReplicated(namespace, changes, replicaOptions),
      onAuditWrites: (listener) => ctx.store.onAuditWrites(listener),
      docLog: docLogOf(ctx.store),
    });
    if (options.sweepEveryMs !== undefined) {
      this.#timer = setInterval(() => void this.sweep().catch(report), options.sweepEveryMs);
      // Node: a sweep timer must not keep the process alive on its own.
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }

  /** Queues written records for embedding; the queue skips content whose vector is already stored. */
  #embedLater(records: Array<{ namespaceKey: string; id: string; contentHash: string; content: string }>): void {
    if (!this.#queue || records.length === 0) return;
    const jobs: EmbedJob[] = records.map((r) => ({ ns: r.namespaceKey, id: r.id, hash: r.contentHash, content: r.content }));
    this.#queue.enqueue(jobs);
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
    [input, options] = readInputs(input, options);
    const result = await remember(this.#ctx, input, options);
    if (result.deduplicated) return result;
    this.#embedLater([result.record]);
    // Unkeyed only: a keyed fact already says what it replaces.
    if (options?.suggestUpdates !== true) return result;
    try {
      const suggestedUpdates = await suggestUpdates(this.#ctx, result.record);
      return suggestedUpdates.length ? { ...result, suggestedUpdates } : result;
    } catch (err) {
      // The memory is committed: a failed look-up must not make the caller think it was not.
      // It goes to onBackgroundError; without a listener the write stands without suggestions.
      if (this.#listensForErrors) this.#report(err);
      return result;
    }
  }

  /**
   * Stores many memories atomically: all or nothing, unless `skipInvalid` writes the
   * valid ones and returns the rest as `failures` (by position).
   * @throws ZeromemError INVALID_INPUT listing every bad item in `details.items`
   */
  async rememberMany(inputs: RememberInput[], options?: RememberManyOptions): Promise<RememberManyResult> {
    [inputs, options] = readInputs(inputs, options);
    const result = await rememberMany(this.#ctx, inputs, options);
    this.#embedLater(result.results.filter((r) => !r.deduplicated).map((r) => r.record));
    return result;
  }

  /** The record, or `undefined` when there is none (or it expired). Reading a cold record re-warms it unless `rewarm: false`. */
  async get(namespace: Namespace, id: string, options?: GetOptions): Promise<MemoryRecord | undefined> {
    [namespace, id, options] = readInputs(namespace, id, options);
    const { rewarm = true } = readOptions(options, ['rewarm']);
    if (typeof rewarm !== 'boolean') throw invalidInput('options', [{ path: 'rewarm', message: `must be true or false, got ${describe(rewarm)}` }]);
    const record = await get(this.#ctx, namespace, id);
    // `rewarm: false` reads without touching (sync, tools): only a use should keep a record hot.
    return rewarm ? rewarmRead(this.#ctx, record) : record;
  }

  /**
   * Changes some fields; returns the updated record.
   * @throws ZeromemError NOT_FOUND, CONFLICT (`ifVersion` mismatch or duplicate content), INVALID_INPUT
   */
  async update(namespace: Namespace, id: string, patch: UpdatePatch, options?: UpdateOptions): Promise<MemoryRecord> {
    [namespace, id, patch, options] = readInputs(namespace, id, patch, options);
    const record = await update(this.#ctx, namespace, id, patch, options);
    // Unchanged content keeps its stored vector: the queue finds it under [model+hash] and embeds nothing.
    this.#embedLater([record]);
    return record;
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
    [namespace, query, options] = readInputs(namespace, query, options);
    const result = await recall(this.#ctx, namespace, await this.#redactQuery(query), options, () => this.pendingEmbeddings());
    return rewarmHits(this.#ctx, requireNamespace(namespace, this.#ctx.limits.maxNameLength), result, options?.trackAccess !== false);
  }

  /** With redaction on, a query is masked and hashed as stored text is (so hashed values match). */
  async #redactQuery<Q>(query: Q): Promise<Q> {
    const redactor = this.#ctx.redactor;
    if (!redactor) return query;
    if (typeof query === 'string') return (await redactor.redactQuery(query)) as Q;
    if (!Array.isArray(query)) return query; // recall's validation answers
    return (await Promise.all(
      query.map(async (turn: unknown) =>
        turn !== null && typeof turn === 'object' && typeof (turn as { content?: unknown }).content === 'string'
          ? { ...(turn as object), content: await redactor.redactQuery((turn as { content: string }).content) }
          : turn,
      ),
    )) as Q;
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
    options = readInput(options);
    const source: ContextSource = {
      recall: (namespace, query, recallOptions) => this.recall(namespace, query, recallOptions),
      list: (namespace, listOptions) => this.list(namespace, listOptions),
      profile: (namespace, profileOptions) => this.profile(namespace, profileOptions),
      countAccess: (namespace, ids) => countAccess(this.#ctx, namespace, ids),
      history: (namespace) => this.#history.read(namespaceKey(namespace), tokenizer),
    };
    const tokenizer = await this.tokenizer();
    const redactor = this.#ctx.redactor;
    return buildContext(redactor?.masksContexts ? maskingSource(source, redactor) : source, tokenizer, options, this.#ctx.limits);
  }

  /**
   * A conversation helper for agent loops: `addTurn` stores turns (session layer, with a
   * TTL), `context()` builds the next prompt's context, `end()` keeps the durable turns.
   * @throws ZeromemError INVALID_INPUT, NAMESPACE_REQUIRED
   */
  session(options: SessionOptions): Session {
    options = readInput(options, ['llm']);
    return new Session(this, () => this.tokenizer(), options, this.#ctx.limits, this.#ctx.clock.now());
  }

  /** The tokenizer contexts are counted with (the one passed to openMemory, or o200k_base). */
  tokenizer(): Promise<Tokenizer> {
    this.#tokenizer ??= createTokenizer();
    return this.#tokenizer;
  }

  /** Memories written but not embedded yet (0 without an embedder). */
  pendingEmbeddings(): number {
    return this.#queue?.pending ?? 0;
  }

  /**
   * Resolves when every memory is embedded (those written before this instance opened
   * included); rejects with EMBEDDER_UNAVAILABLE if the embedder fails meanwhile.
   */
  async whenEmbedded(): Promise<void> {
    await this.#backfill;
    await this.#queue?.whenIdle();
  }

  /** A page of records, newest first by default; continue with `nextCursor`. */
  list(namespace: Namespace, options?: ListOptions): Promise<ListPage> {
    [namespace, options] = readInputs(namespace, options);
    return list(this.#ctx, namespace, options);
  }

  /**
   * The namespaces that hold records, of every user or of one (`{ userId }`), ordered by key.
   * @throws ZeromemError INVALID_INPUT
   */
  listNamespaces(options?: { userId?: string }): Promise<Namespace[]> {
    [options] = readInputs(options);
    return listNamespaces(this.#ctx, options);
  }

  /**
   * The record's earlier versions, oldest first, each with who replaced it and when
   * (`changedBy`, `changedAt`): the last `historyDepth` (default 20) changes; a forget deletes them with the record.
   * @throws ZeromemError NOT_FOUND (no such live record), NAMESPACE_REQUIRED, INVALID_INPUT
   */
  history(namespace: Namespace, id: string): Promise<RecordVersion[]> {
    [namespace, id] = readInputs(namespace, id);
    return history(this.#ctx, namespace, id);
  }

  /** How many live records match (all without a filter); keyed facts that hold now, or at `asOf` (every version with `includeClosed`). */
  count(namespace: Namespace, filter?: RecordFilter & ValidityOptions): Promise<number> {
    [namespace, filter] = readInputs(namespace, filter);
    return count(this.#ctx, namespace, filter);
  }

  /**
   * The namespace's current keyed facts (or those that held at `asOf`), one per key,
   * sorted by key: what the user's profile says now.
   * @throws ZeromemError NAMESPACE_REQUIRED, INVALID_INPUT
   */
  profile(namespace: Namespace, options?: ProfileOptions): Promise<ProfileEntry[]> {
    [namespace, options] = readInputs(namespace, options);
    return profile(this.#ctx, namespace, options);
  }

  /** Counts, sizes and time span of the namespace. */
  stats(namespace: Namespace): Promise<NamespaceStats> {
    namespace = readInput(namespace);
    return stats(this.#ctx, namespace);
  }

  /** Deletes one record (with its vector and index entries); true when a live one was forgotten. */
  async forget(namespace: Namespace, id: string, options?: WriteOptions): Promise<boolean> {
    [namespace, id, options] = readInputs(namespace, id, options);
    return forget(this.#ctx, namespace, id, options);
  }

  /** Deletes the records that match a (non-empty) filter; returns their ids. */
  async forgetWhere(namespace: Namespace, filter: RecordFilter, options?: WriteOptions): Promise<string[]> {
    [namespace, filter, options] = readInputs(namespace, filter, options);
    return forgetWhere(this.#ctx, namespace, filter, options);
  }

  /** Deletes every record of exactly this namespace; returns how many. */
  async forgetNamespace(namespace: Namespace, options?: WriteOptions): Promise<number> {
    [namespace, options] = readInputs(namespace, options);
    return forgetNamespace(this.#ctx, namespace, options);
  }

  /** Deletes every record of a user, in all of their namespaces; returns how many. */
  async forgetUser(userId: string, options?: WriteOptions): Promise<number> {
    [userId, options] = readInputs(userId, options);
    return forgetUser(this.#ctx, userId, options);
  }

  /**
   * Merges near-duplicate memories of a namespace (cosine similarity of stored vectors >=
   * `threshold` plus overlapping tags; text equality ignoring case and punctuation for
   * records without a vector). The newest content survives with the highest importance,
   * the union of tags and `mergedFrom`; the rest is forgotten. `dryRun: true` only plans.
   * @throws ZeromemError NAMESPACE_REQUIRED, INVALID_INPUT
   */
  async consolidate(namespace: Namespace, options?: ConsolidateOptions): Promise<ConsolidateResult> {
    [namespace, options] = readInputs(namespace, options);
    return consolidate(this.#ctx, namespace, options);
  }

  /**
   * Ages records by the clock (one namespace, or all): untouched records' importance decays
   * toward the floor; records untouched for `lifecycle.coldAfter` and below
   * `lifecycle.coldBelowImportance` go cold (recall skips them unless `includeCold`).
   */
  retier(options?: RetierOptions): Promise<RetierResult> {
    options = readInput(options);
    return retier(this.#ctx, options);
  }

  /**
   * Tells memory these records were used (e.g. put into a prompt): their importance rises
   * by `lifecycle.useGain`, they re-warm and count as touched. Unknown ids are skipped.
   * `buildContext` does not call it: the memories a context keeps only count as accessed
   * (heat), as recall hits do; call `markUsed` for those that proved useful.
   * @throws ZeromemError NAMESPACE_REQUIRED, INVALID_INPUT
   */
  markUsed(namespace: Namespace, ids: string[]): Promise<MemoryRecord[]> {
    [namespace, ids] = readInputs(namespace, ids);
    return markUsed(this.#ctx, namespace, ids);
  }

  /**
   * Exports a namespace (`{ namespace }`) or a whole user (`{ userId }`) as versioned JSONL:
   * a header line (format, version, scope, record count, vector model), then one line per
   * live record with every field. `vectors: true` includes the current embedder's vectors.
   * @throws ZeromemError NAMESPACE_REQUIRED, INVALID_INPUT
   */
  exportJsonl(scope: ExportScope, options?: ExportOptions): Promise<string> {
    [scope, options] = readInputs(scope, options);
    return exportJsonl(this.#ctx, scope, options);
  }

  /**
   * Imports what `exportJsonl` wrote (the text, or an iterable or async iterable of its
   * lines), losslessly. Every line is validated first; bad lines are INVALID_INPUT listed
   * by number in `details.lines` and nothing is written, unless `skipInvalid: true` writes
   * the good lines and returns the bad ones. Stored content is deduplicated as `remember` does.
   * Carried vectors are stored at unit length (scaled if needed; a zero vector is a bad line).
   * @throws ZeromemError INVALID_INPUT, CONFLICT, QUOTA_EXCEEDED
   */
  async importJsonl(
    source: string | Iterable<string> | AsyncIterable<string>,
    options?: ImportOptions,
  ): Promise<ImportResult> {
    [source, options] = readInputs(source, options);
    const { result, added } = await importJsonl(this.#ctx, source, options);
    this.#embedLater(added);
    return result;
  }

  /** Deletes every expired record now (purged as by a forget); returns how many. */
  async sweep(): Promise<number> {
    return (await sweep(this.#ctx)).length;
  }

  /** The namespace's audit log (no content), oldest first. */
  audit(namespace: Namespace, options?: AuditOptions): Promise<AuditEntry[]> {
    [namespace, options] = readInputs(namespace, options);
    return audit(this.#ctx, namespace, options);
  }

  /** {@link Replica.apply}, reached through `@zeromem/core/internal`'s `replicaOf(memory)`. */
  async #applyReplicated(namespace: Namespace, changes: ReplicatedChange[], options: ReplicaApplyOptions): Promise<ApplyReplicatedResult> {
    [namespace, changes, options] = readInputs(namespace, changes, options);
    const result = await applyReplicated(this.#ctx, namespace, changes, options);
    this.#embedLater(result.written);
    return result;
  }

  /**
   * Watches a list: `listener` gets the page now and after every change to it, from this
   * or any other instance or tab on the same database. Returns the function that stops it.
   * @throws ZeromemError NAMESPACE_REQUIRED or INVALID_INPUT (bad options or listener), synchronously
   */
  watch(namespace: Namespace, options: ListOptions | undefined, listener: WatchListener | ((page: ListPage) => void)): () => void {
    [namespace, options, listener] = readInputs(namespace, options, listener);
    return watch(this.#ctx, namespace, options, listener);
  }

  /** Writes pending access statistics, stops background work and closes the database. Later calls fail with CLOSED. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#queue?.close();
    try {
      // Access counts are background work: a failure to write them is reported, and the memory still closes.
      await this.#ctx.access.flush().catch(this.#report);
      await this.#ctx.indexes.close();
    } finally {
      await this.#ctx.store.close();
    }
  }
}

/**
 * The default of `onBackgroundError`: each code's first failure as a warning (Node's
 * `process.emitWarning`, else `console.warn`), later ones of that code not repeated, so a
 * full disk does not print a line per recall.
 */
function warnOnce(): (err: unknown) => void {
  const warned = new Set<string>();
  return (err) => {
    const code = err instanceof ZeromemError ? err.code : 'UNEXPECTED';
    if (warned.has(code)) return;
    warned.add(code);
    const text = `zeromem: background work failed and goes on without it (reported once per code; pass onBackgroundError to hear every failure): ${code}: ${err instanceof Error ? err.message : String(err)}`;
    const node = (globalThis as { process?: { emitWarning?: (message: string, options: { type: string; code: string }) => void } }).process;
    if (typeof node?.emitWarning === 'function') node.emitWarning(text, { type: 'ZeromemWarning', code });
    else console.warn(text);
  };
}
