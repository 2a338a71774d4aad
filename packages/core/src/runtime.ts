import { backfillVectors } from './embed/backfill.ts';
import { EmbedQueue } from './embed/embed-queue.ts';
import { IndexManager } from './search/index-manager.ts';
import { systemClock } from './model/clock.ts';
import { ZeromemError } from './public/errors.ts';
import { createUlidGenerator } from './model/ids.ts';
import { readInputs } from './model/read-input.ts';
import type { StoragePort } from './store/port.ts';
import { AccessTracker } from './rank/access-tracker.ts';
import { HistoryCounts } from './context/history-counts.ts';
import { createTokenizer } from './context/tokenizer.ts';
import type { Tokenizer } from './public/tokenizer.ts';
import { RecordCopies } from './write/record-copies.ts';
import { applyReplicated } from './verbs/apply-replicated.ts';
import type { MemoryContext } from './verbs/memory-context.ts';
import { sweep } from './lifecycle/sweep.ts';
import { Memory } from './memory.ts';
import { readMemoryOptions, type MemorySettings } from './memory-options.ts';
import type { OpenMemoryOptions } from './public/options.ts';
import { historyInternals, memoryInternals } from './test-hooks.ts';
import { docLogOf, registerReplica } from './replica.ts';

/**
 * Opens the store a memory is kept in: given the memory's name and its options, both
 * validated. Each storage engine has one (the Dexie engine's is open-memory.ts's, the SQLite engine's open-memory.node.ts's).
 */
export type StoreOpener = (name: string, options: OpenMemoryOptions) => Promise<StoragePort>;

/**
 * @internal {@link openMemory} over any storage engine: validates the options (bad ones
 * are INVALID_INPUT and nothing is opened), then opens the store with `openStore`, wires
 * the memory's services on it ({@link MemoryContext}) and returns the `Memory` over them,
 * registered as a replica for `@zeromem/core/internal`. For core's own entries (the Node
 * entry's `openMemory`), not applications.
 */
export async function openMemoryOnStore(options: OpenMemoryOptions, openStore: StoreOpener): Promise<Memory> {
  const settings = readMemoryOptions(options);
  if (!globalThis.crypto?.subtle) {
    // Content hashes use WebCrypto, which browsers only expose in secure contexts.
    throw new ZeromemError('UNSUPPORTED_ENVIRONMENT', 'zeromem needs WebCrypto (crypto.subtle): serve the page over https or from localhost.');
  }
  const ctx = wire(await openStore(settings.name, settings.options), settings);
  const memory = new Memory(ctx);
  memoryInternals.set(memory, ctx);
  historyInternals.set(memory, ctx.history);
  registerReplica(memory, {
    apply: (namespace, changes, replicaOptions) => applyReplicated(ctx, ...readInputs(namespace, changes, replicaOptions)),
    onAuditWrites: (listener) => ctx.store.onAuditWrites(listener),
    docLog: docLogOf(ctx.store),
  });
  return memory;
}

/**
 * The services of one open memory, wired once: search indexes, the embedding queue and
 * the backfill of records stored without a vector, access statistics, history counts,
 * the tokenizer, the record copies every writing verb keeps in step, the sweep timer, and
 * where background failures go.
 */
function wire(store: StoragePort, settings: MemorySettings): MemoryContext {
  const { options } = settings;
  const warn = warnOnce();
  const onBackgroundError = options.onBackgroundError;
  const report = (err: unknown) => {
    if ((err as ZeromemError).code === 'CLOSED') return; // closed while background work ran: nothing to do
    if (onBackgroundError) onBackgroundError(err as ZeromemError);
    // Nobody listens: a warning, never an uncaught error (work the caller did not ask for must not end its process).
    else warn(err);
  };
  let closed = false;
  let tokenizer: Promise<Tokenizer> | undefined = options.tokenizer ? Promise.resolve(options.tokenizer) : undefined;
  const embedder = options.embedder;
  let queue: EmbedQueue | undefined;
  const indexes = new IndexManager(store, () => embedder?.modelId, (jobs) => queue?.enqueue(jobs), {
    snapshots: options.indexSnapshots ?? {},
    onError: report,
    embedding: () => (queue?.pending ?? 0) > 0,
  });
  let backfill: Promise<void> = Promise.resolve();
  if (embedder) {
    const embeddings = new EmbedQueue(store, embedder, (done) => indexes.vectorsStored(done), report);
    queue = embeddings;
    // Records stored without this model's vector (new model, earlier close) get one in the background.
    backfill = backfillVectors(store, embedder.modelId, (jobs) => embeddings.enqueue(jobs), () => closed).then(() => undefined, report);
  }
  const clock = options.clock ?? systemClock;
  const history = new HistoryCounts(store, clock);
  const access = new AccessTracker(store, report);
  // What this process holds of records besides their rows: every verb that writes or deletes records keeps it in step.
  const copies = new RecordCopies({ queue: () => queue, tokenizer: () => tokenizer, history, indexes });
  let timer: ReturnType<typeof setInterval> | undefined;
  const ctx: MemoryContext = {
    store,
    clock,
    limits: settings.limits,
    actor: settings.actor,
    newId: createUlidGenerator(),
    historyDepth: settings.historyDepth,
    redactor: settings.redactor,
    indexes,
    embedder,
    access,
    copies,
    lifecycle: settings.lifecycle,
    history,
    tokenizer: () => (tokenizer ??= createTokenizer()),
    pendingEmbeddings: () => queue?.pending ?? 0,
    whenEmbedded: async () => {
      await backfill;
      await queue?.whenIdle();
    },
    reportToListener: (err) => {
      if (onBackgroundError) report(err);
    },
    close: async () => {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      queue?.close();
      try {
        // Access counts are background work: a failure to write them is reported, and the memory still closes.
        await access.flush().catch(report);
        await indexes.close();
      } finally {
        await store.close();
      }
    },
  };
  if (options.sweepEveryMs !== undefined) {
    timer = setInterval(() => void sweep(ctx).catch(report), options.sweepEveryMs);
    // Node: a sweep timer must not keep the process alive on its own.
    (timer as { unref?: () => void }).unref?.();
  }
  return ctx;
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
