import { clearCountCache } from '../context/count-cache.ts';
import type { HistoryCounts } from '../context/history-counts.ts';
import type { Tokenizer } from '../public/tokenizer.ts';
import type { EmbedJob, EmbedQueue } from '../embed/embed-queue.ts';
import type { IndexManager } from '../search/index-manager.ts';
import type { DeletedRecord } from './deleted-record.ts';

/** Where a memory keeps what it holds of records besides their rows (read when a purge runs: the queue and tokenizer come and go). */
export interface CopyHolders {
  queue(): EmbedQueue | undefined;
  tokenizer(): Promise<Tokenizer> | undefined;
  history: HistoryCounts;
  indexes: IndexManager;
}

/** What a new or changed record's copies are made from: its place, its content and that content's hash. */
export interface AddedRecord {
  namespaceKey: string;
  id: string;
  contentHash: string;
  content: string;
}

/** Names the copies to purge: a namespace key, and a record id for per-record copies (queued jobs, history counts). */
export type CopyMatch = (key: string, id?: string) => boolean;

/**
 * Every copy of a record this process holds besides its rows, in one place: queued
 * embedding jobs (they hold its text), the token-count cache (keyed by counted lines), the
 * history counts, and the loaded search indexes. After a transaction that wrote new
 * content (a remember, an update, an import, a replicated change), the verb that ran it
 * calls {@link added}, which queues what a new record needs (its embedding). After one that deleted or
 * replaced records commits (a forget, an expiry, a merge, an import or a replicated change
 * over them), the verb that ran it calls {@link purge} itself (the forgets through
 * forgetRows), so their old content leaves this process now, not at the next recall.
 * Other processes catch up through the audit log.
 */
export class RecordCopies {
  readonly #holders: CopyHolders;

  constructor(holders: CopyHolders) {
    this.#holders = holders;
  }

  /**
   * Queues written records for embedding (without an embedder, nothing). The queue skips
   * content whose vector is already stored, so an unchanged content costs nothing.
   */
  added(records: readonly AddedRecord[]): void {
    const queue = this.#holders.queue();
    if (!queue || records.length === 0) return;
    queue.enqueue(records.map((r): EmbedJob => ({ ns: r.namespaceKey, id: r.id, hash: r.contentHash, content: r.content })));
  }

  /** Purges what `matches` names. */
  async purge(matches: CopyMatch): Promise<void> {
    const { queue, tokenizer, history, indexes } = this.#holders;
    queue()?.drop(matches);
    const loaded = await tokenizer()?.catch(() => undefined); // one that failed to load counted nothing
    if (loaded) clearCountCache(loaded);
    await history.purge(matches);
    for (const key of indexes.loadedKeys().filter((key) => matches(key))) await indexes.ready(key);
  }

  /** {@link purge} for a known list of deleted records (sweep, consolidate, import, replication). */
  async purgeRecords(deleted: DeletedRecord[]): Promise<void> {
    if (deleted.length === 0) return;
    const keys = new Set(deleted.map((r) => r.ns));
    const records = new Set(deleted.map((r) => `${r.ns}\u0000${r.id}`));
    await this.purge((key, id) => (id === undefined ? keys.has(key) : records.has(`${key}\u0000${id}`)));
  }
}
