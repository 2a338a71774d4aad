import { heatKey, type StoragePort } from '../store/port.ts';
import { captureHeat, captureSnapshot, emptyHeat, heatCovered, type HeatRow } from './index-snapshot.ts';
import type { NamespaceIndex } from './namespace-index.ts';
import type { IndexSnapshotOptions } from '../public/options.ts';

const DEFAULTS = { minRecords: 2000, delayMs: 5000 };

/**
 * How many times in a row a due snapshot waits one more delay while vectors are still
 * being embedded (a minute at the default delay; none with a delay of 0, which means at
 * once): each stored vector is a change, so a bulk import with its index loaded wrote a
 * snapshot of the whole namespace again every tenth of it (100k memories: 13 s of
 * snapshots beside 9.7 s of the model, issue 32).
 */
const MAX_EMBEDDING_WAITS = 12;

/**
 * Decides when a loaded index is snapshotted to the store (table `indexSnapshots`) and
 * writes it, off the caller's path: after a build (no snapshot stored), after changes
 * worth a tenth of the namespace, after a forget or text change deleted the stored one,
 * and on close for every index that changed since its last snapshot. A close after
 * recalls only (access statistics, no other change) writes their heat row instead
 * (index-snapshot.ts `HeatRow`): a few bytes a recalled record, not the whole index.
 */
export class SnapshotWriter {
  readonly minRecords: number;
  readonly #delayMs: number;
  readonly #store: StoragePort;
  readonly #modelId: () => string | undefined;
  readonly #current: (ns: string) => Promise<NamespaceIndex | undefined>;
  readonly #onError: (err: unknown) => void;
  readonly #embedding: () => boolean;
  #embeddingWaits = 0;
  readonly #due = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;
  #closed = false;

  /**
   * @param current the namespace's index caught up with the store, undefined when it is no longer loaded
   * @param onError receives failures of background writes
   * @param embedding true while vectors are still being embedded: a due snapshot waits (at most {@link MAX_EMBEDDING_WAITS} delays)
   */
  constructor(
    store: StoragePort,
    modelId: () => string | undefined,
    current: (ns: string) => Promise<NamespaceIndex | undefined>,
    options: IndexSnapshotOptions,
    onError: (err: unknown) => void,
    embedding: () => boolean = () => false,
  ) {
    this.#store = store;
    this.#modelId = modelId;
    this.#current = current;
    this.minRecords = options.minRecords ?? DEFAULTS.minRecords;
    this.#delayMs = options.delayMs ?? DEFAULTS.delayMs;
    this.#onError = onError;
    this.#embedding = embedding;
  }

  /**
   * Marks the namespace's snapshot due when the index is big enough and the stored one is
   * missing or stale (`missingOrStale`) or lags by a tenth of the records (at least
   * `minRecords` changes).
   */
  consider(ns: string, index: NamespaceIndex, missingOrStale: boolean): void {
    if (this.#closed || index.records.size < this.minRecords) return;
    if (!missingOrStale && index.changesSinceSnapshot < Math.max(this.minRecords, index.records.size / 10)) return;
    this.#due.add(ns);
    if (!this.#timer) this.#schedule();
  }

  #schedule(): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#delayMs > 0 && this.#embedding() && this.#embeddingWaits < MAX_EMBEDDING_WAITS) {
        this.#embeddingWaits++;
        this.#schedule();
        return;
      }
      this.#embeddingWaits = 0;
      this.#running = this.#writeDue()
        .catch(this.#onError)
        .finally(() => (this.#running = undefined));
    }, this.#delayMs);
    (this.#timer as { unref?: () => void }).unref?.(); // Node: never keeps a process alive
  }

  /** Resolves once no snapshot is due or being written (for tests and benchmarks). */
  async idle(): Promise<void> {
    while (this.#timer || this.#running) await (this.#running ?? new Promise((resolve) => setTimeout(resolve, 1)));
  }

  /**
   * Stops background writes and writes the snapshot of every given index that changed
   * since its last one, so the next instance starts where this one ended; of an index
   * whose only changes are access statistics, only their heat row. The indexes must be
   * caught up with the store. A write that fails goes to `onError` as a background write's
   * does: a snapshot is a cache, never worth a failed close (a store found damaged refuses
   * every write, and its close must still close the file).
   */
  async close(loaded: Iterable<[string, NamespaceIndex]>): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#closed = true;
    await this.#running;
    const heatOnly: string[] = [];
    for (const [ns, index] of loaded) {
      if (index.records.size < this.minRecords) continue;
      if (index.changesSinceSnapshot > index.accessChangesSinceSnapshot) this.#due.add(ns);
      else if (index.accessedSinceSnapshot.size > 0) heatOnly.push(ns);
    }
    const due = new Set(this.#due);
    try {
      await this.#writeDue();
      for (const ns of heatOnly) if (!due.has(ns)) await this.#writeHeat(ns);
    } catch (err) {
      this.#onError(err);
    }
  }

  /** Stores the heat of the records this instance recalled since the snapshot, merged with the row other closes stored. */
  async #writeHeat(ns: string): Promise<void> {
    const index = await this.#current(ns);
    if (!index) return;
    await this.#store.write(async (tx) => {
      const stored = (await tx.getSnapshot(heatKey(ns))) as HeatRow | undefined;
      await tx.putSnapshot(captureHeat(ns, index, index.accessedSinceSnapshot.keys(), stored));
    });
  }

  async #writeDue(): Promise<void> {
    const due = [...this.#due];
    this.#due.clear();
    for (const ns of due) await this.#write(ns);
  }

  async #write(ns: string): Promise<void> {
    const index = await this.#current(ns);
    if (!index) return; // dropped meanwhile: its next load rebuilds and snapshots
    const counted = index.changesSinceSnapshot;
    const accessCounted = index.accessChangesSinceSnapshot;
    const notes = index.accessNotes;
    const row = captureSnapshot(ns, index, this.#modelId());
    const written = await this.#store.write(async (tx) => {
      // Only a snapshot of the current state: a forget after the capture has deleted the
      // stored snapshot in its own transaction and must not be undone by this one.
      if ((await tx.lastAuditSeq(ns)) !== row.lastSeq) return false;
      await tx.putSnapshot(row);
      // A heat row this index has taken in is redundant now; one with counts of closes
      // this instance never read stays.
      const heat = (await tx.getSnapshot(heatKey(ns))) as HeatRow | undefined;
      if (heat && heat.ids !== '[]' && heatCovered(heat, index)) await tx.putSnapshot(emptyHeat(ns, row.lastSeq));
      return true;
    });
    if (written) {
      // What changed during the write still counts.
      index.changesSinceSnapshot -= counted;
      index.accessChangesSinceSnapshot -= accessCounted;
      for (const [id, at] of index.accessedSinceSnapshot) if (at <= notes) index.accessedSinceSnapshot.delete(id);
    } else this.consider(ns, index, true); // changed meanwhile: again, later
  }
}
