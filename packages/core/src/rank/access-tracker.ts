import type { StoragePort } from '../store/port.ts';
import type { RecordRow } from '../store/row.ts';

/** How long recall hits wait before their access statistics are written. */
const FLUSH_MS = 1000;

/**
 * Batches access statistics: recall notes its hits here and one transaction writes the
 * counts later, never one write per hit and never on the recall's path. Access updates
 * are not audited and do not move `updatedAt` or `version`.
 */
export class AccessTracker {
  readonly #store: StoragePort;
  readonly #onError: (err: Error) => void;
  readonly #buffer = new Map<string, { ns: string; id: string; count: number; last: number }>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(store: StoragePort, onError: (err: Error) => void) {
    this.#store = store;
    this.#onError = onError;
  }

  /** Notes that these records were recalled at `at`. */
  note(ns: string, ids: readonly string[], at: number): void {
    for (const id of ids) {
      const key = `${ns}\u0000${id}`;
      const entry = this.#buffer.get(key);
      if (entry) {
        entry.count++;
        entry.last = Math.max(entry.last, at);
      } else this.#buffer.set(key, { ns, id, count: 1, last: at });
    }
    if (this.#buffer.size && !this.#timer) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.flush().catch(this.#onError);
      }, FLUSH_MS);
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }

  /** Writes the buffered statistics now, in one transaction. */
  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#buffer.size === 0) return;
    const entries = [...this.#buffer.values()];
    this.#buffer.clear();
    await this.#store.write(async (tx) => {
      const rows = await tx.getRecords(entries.map((e) => [e.ns, e.id] as const));
      const updated: RecordRow[] = [];
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i];
        if (!row) continue; // forgotten since it was recalled
        row.accessCount += entries[i]!.count;
        row.lastAccessedAt = Math.max(row.lastAccessedAt ?? 0, entries[i]!.last);
        updated.push(row);
      }
      await tx.putRecords(updated);
    });
  }
}
