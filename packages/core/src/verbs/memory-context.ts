import type { HistoryCounts } from '../context/history-counts.ts';
import type { Tokenizer } from '../public/tokenizer.ts';
import type { LifecycleContext } from '../lifecycle/lifecycle-context.ts';

/**
 * What an open memory's verbs run on: the lifecycle context (store, clock, limits, search
 * indexes, embedder, access statistics, record copies, policy) and the memory's other
 * services, wired once per memory by runtime.ts. `Memory` hands it to each verb; a verb
 * holds its whole contract (what it validates, writes, queues, purges and counts).
 */
export interface MemoryContext extends LifecycleContext {
  /** The full-history counts of built contexts (context/history-counts.ts). */
  history: HistoryCounts;
  /** The tokenizer contexts are counted with: the one passed to openMemory, or o200k_base loaded on first use. */
  tokenizer(): Promise<Tokenizer>;
  /** Memories written but not embedded yet (0 without an embedder). */
  pendingEmbeddings(): number;
  /** Resolves when every memory is embedded; rejects with EMBEDDER_UNAVAILABLE if the embedder fails meanwhile. */
  whenEmbedded(): Promise<void>;
  /**
   * Hands a failure the caller must not see (its call succeeded) to `onBackgroundError`
   * when the application passed one; without one the failure is dropped, not warned about.
   */
  reportToListener(err: unknown): void;
  /** Writes pending access statistics, stops background work and closes the store. */
  close(): Promise<void>;
}
