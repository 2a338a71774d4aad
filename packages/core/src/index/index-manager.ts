import { Dexie } from 'dexie';
import type { EmbedJob } from '../embed/embed-queue.ts';
import type { MemoryDatabase } from '../store/database.ts';
import { fromRow, type RecordRow } from '../store/row.ts';
import { withStorage } from '../store/storage-errors.ts';
import { NamespaceIndex } from './namespace-index.ts';

/** Records held in loaded indexes before the least recently searched namespaces are dropped. */
const DEFAULT_MAX_INDEXED_RECORDS = 250_000;

/**
 * Keeps one {@link NamespaceIndex} per namespace that has been searched: built on first
 * use from the store, then caught up before each search from the audit log, which every
 * write of every instance (other tabs included) appends to in the same transaction.
 * Least recently searched namespaces are dropped when the loaded indexes hold more than
 * `maxIndexedRecords` records (they are rebuilt when searched again).
 */
export class IndexManager {
  readonly #db: MemoryDatabase;
  readonly #modelId: () => string | undefined;
  readonly #needsVectors: (jobs: EmbedJob[]) => void;
  readonly #indexes = new Map<string, NamespaceIndex>();
  readonly #pending = new Map<string, Promise<NamespaceIndex>>();
  readonly #maxIndexedRecords: number;

  /**
   * @param modelId the current embedder's model id (undefined: no vectors)
   * @param needsVectors receives records whose vector is not stored yet
   */
  constructor(db: MemoryDatabase, modelId: () => string | undefined, needsVectors: (jobs: EmbedJob[]) => void, maxIndexedRecords = DEFAULT_MAX_INDEXED_RECORDS) {
    this.#db = db;
    this.#maxIndexedRecords = maxIndexedRecords;
    this.#modelId = modelId;
    this.#needsVectors = needsVectors;
  }

  /** The namespace's index, current with the store. Concurrent calls share one load. */
  ready(ns: string): Promise<NamespaceIndex> {
    const running = this.#pending.get(ns);
    if (running) return running;
    const work = (async () => {
      const existing = this.#indexes.get(ns);
      const index = existing ? await this.#catchUp(ns, existing) : await this.#load(ns);
      this.#indexes.delete(ns); // re-insert: the Map's order is the recency order
      this.#indexes.set(ns, index);
      this.#evict();
      return index;
    })().finally(() => this.#pending.delete(ns));
    this.#pending.set(ns, work);
    return work;
  }

  /** The index of a namespace if it is loaded (no store access). */
  loaded(ns: string): NamespaceIndex | undefined {
    return this.#indexes.get(ns);
  }

  /** The namespace keys whose indexes are loaded. */
  loadedKeys(): string[] {
    return [...this.#indexes.keys()];
  }

  #evict(): void {
    let held = 0;
    for (const index of this.#indexes.values()) held += index.records.size;
    for (const [ns, index] of this.#indexes) {
      if (held <= this.#maxIndexedRecords || this.#indexes.size === 1) break;
      this.#indexes.delete(ns);
      held -= index.records.size;
    }
  }

  async #load(ns: string): Promise<NamespaceIndex> {
    const model = this.#modelId();
    const db = this.#db;
    const { rows, lastSeq, vectors } = await withStorage(() =>
      db.transaction('r', db.records, db.audit, db.vectors, async () => {
        const last = await db.audit.where('[ns+seq]').between([ns, Dexie.minKey], [ns, Dexie.maxKey]).last();
        const rows = await db.records.where('[ns+id]').between([ns, Dexie.minKey], [ns, Dexie.maxKey]).toArray();
        const vectors = model ? await db.vectors.bulkGet(rows.map((row) => [model, row.contentHash] as [string, string])) : [];
        return { rows, lastSeq: last?.seq ?? 0, vectors };
      }),
    );
    const index = new NamespaceIndex();
    index.lastSeq = lastSeq;
    index.addMany(rows.map(fromRow));
    this.#applyVectors(index, rows, vectors);
    return index;
  }

  async #catchUp(ns: string, index: NamespaceIndex): Promise<NamespaceIndex> {
    const db = this.#db;
    const entries = await withStorage(() => db.audit.where('[ns+seq]').between([ns, index.lastSeq], [ns, Dexie.maxKey], false, true).toArray());
    if (entries.length === 0) return index;
    const ids = [...new Set(entries.map((entry) => entry.id))];
    const model = this.#modelId();
    const { rows, live, vectors } = await withStorage(() =>
      db.transaction('r', db.records, db.vectors, async () => {
        const rows = await db.records.bulkGet(ids.map((id) => [ns, id] as [string, string]));
        const live = rows.filter((row): row is RecordRow => row !== undefined);
        const vectors = model ? await db.vectors.bulkGet(live.map((row) => [model, row.contentHash] as [string, string])) : [];
        return { rows, live, vectors };
      }),
    );
    const changedIds = new Set<string>();
    rows.forEach((row, i) => {
      if (!row) index.remove(ids[i]!);
      else if (index.upsert(fromRow(row))) changedIds.add(row.id);
    });
    // Only records whose content is new to the index need their vector (stored or to embed).
    this.#applyVectors(
      index,
      live.filter((row) => changedIds.has(row.id)),
      vectors.filter((_, i) => changedIds.has(live[i]!.id)),
    );
    index.lastSeq = entries[entries.length - 1]!.seq!;
    return index;
  }

  #applyVectors(index: NamespaceIndex, rows: RecordRow[], vectors: Array<{ vector: Float32Array | null } | undefined>): void {
    if (!this.#modelId()) return;
    const missing: EmbedJob[] = [];
    rows.forEach((row, i) => {
      const stored = vectors[i];
      if (stored) index.setVector(row.id, row.contentHash, stored.vector);
      else missing.push({ ns: row.ns, id: row.id, hash: row.contentHash, content: row.content });
    });
    if (missing.length) this.#needsVectors(missing);
  }
}
