import { Dexie } from 'dexie';
import type { EmbedJob } from '../embed/embed-queue.ts';
import type { MemoryDatabase } from '../store/database.ts';
import { fromRow, type RecordRow } from '../store/row.ts';
import { withStorage } from '../store/storage-errors.ts';
import { changesText } from '../model/changes-text.ts';
import type { MemoryRecord } from '../model/types.ts';
import { captureSnapshot, restoreSnapshot } from './index-snapshot.ts';
import { NamespaceIndex } from './namespace-index.ts';

/** Records held in loaded indexes before the least recently searched namespaces are dropped. */
const DEFAULT_MAX_INDEXED_RECORDS = 250_000;

/** When indexes are snapshotted to the store (see {@link IndexManager}). */
export interface IndexSnapshotOptions {
  /** Namespaces with fewer records are rebuilt on open instead (quick enough). Default 2,000. */
  minRecords?: number;
  /** How long after the changes that call for a snapshot it is written. Default 5,000 ms. */
  delayMs?: number;
}

const SNAPSHOT_DEFAULTS = { minRecords: 2000, delayMs: 5000 };

/**
 * Keeps one {@link NamespaceIndex} per namespace that has been searched: built on first
 * use from the store, then caught up before each search from the audit log, which every
 * write of every instance (other tabs included) appends to in the same transaction.
 * Least recently searched namespaces are dropped when the loaded indexes hold more than
 * `maxIndexedRecords` records (they are rebuilt when searched again).
 *
 * A namespace of `minRecords` or more is snapshotted to the store (table `indexSnapshots`)
 * after it is built and after enough changes, off the caller's path, and on close; a new
 * instance restores the snapshot and replays the audit log after it instead of reading
 * every row and vector back (100k memories: seconds instead of tens of seconds).
 */
export class IndexManager {
  readonly #db: MemoryDatabase;
  readonly #modelId: () => string | undefined;
  readonly #needsVectors: (jobs: EmbedJob[]) => void;
  readonly #indexes = new Map<string, NamespaceIndex>();
  readonly #pending = new Map<string, Promise<NamespaceIndex>>();
  readonly #maxIndexedRecords: number;
  readonly #snapshots: Required<IndexSnapshotOptions> | false;
  readonly #onError: (err: unknown) => void;
  /** Namespaces whose snapshot is due, and the timer that writes them. */
  readonly #due = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  /**
   * @param modelId the current embedder's model id (undefined: no vectors)
   * @param needsVectors receives records whose vector is not stored yet
   * @param onError receives failures of background snapshot writes
   */
  constructor(
    db: MemoryDatabase,
    modelId: () => string | undefined,
    needsVectors: (jobs: EmbedJob[]) => void,
    options: { maxIndexedRecords?: number; snapshots?: IndexSnapshotOptions | false; onError: (err: unknown) => void },
  ) {
    this.#db = db;
    this.#maxIndexedRecords = options.maxIndexedRecords ?? DEFAULT_MAX_INDEXED_RECORDS;
    this.#snapshots =
      options.snapshots === false
        ? false
        : { minRecords: options.snapshots?.minRecords ?? SNAPSHOT_DEFAULTS.minRecords, delayMs: options.snapshots?.delayMs ?? SNAPSHOT_DEFAULTS.delayMs };
    this.#onError = options.onError;
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
    const restored = this.#snapshots ? await this.#restore(ns) : undefined;
    if (restored) return restored;
    const index = await this.#build(ns);
    this.#considerSnapshot(ns, index, true);
    return index;
  }

  /** The namespace's snapshot, restored and caught up; undefined when there is none (or it is unusable). */
  async #restore(ns: string): Promise<NamespaceIndex | undefined> {
    const db = this.#db;
    const row = await withStorage(() => db.indexSnapshots.get(ns));
    if (!row) return undefined;
    const model = this.#modelId();
    const restored = restoreSnapshot(row, model);
    if (!restored) return undefined;
    const { index, withoutVector } = restored;
    if (model && withoutVector.length) {
      // Embedded after the snapshot was taken (or another model): stored vectors or the queue.
      const vectors = await withStorage(() => db.vectors.bulkGet(withoutVector.map((record) => [model, record.contentHash] as [string, string])));
      this.#applyVectors(index, withoutVector, vectors);
      index.changesSinceSnapshot += withoutVector.length;
    }
    const current = await this.#catchUp(ns, index);
    this.#considerSnapshot(ns, current, false);
    return current;
  }

  /** Reads every row (and vector) of the namespace and indexes them. */
  async #build(ns: string): Promise<NamespaceIndex> {
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
    const records = rows.map(fromRow);
    index.addMany(records);
    this.#applyVectors(index, records, vectors);
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
    let snapshotDropped = false; // a forget, expiry or content change deletes the stored snapshot
    rows.forEach((row, i) => {
      if (!row) {
        index.remove(ids[i]!);
        snapshotDropped = true;
      } else {
        const known = index.records.get(row.id);
        const record = fromRow(row);
        if (index.upsert(record)) changedIds.add(row.id);
        snapshotDropped ||= known !== undefined && changesText(record, known);
      }
    });
    // Only records whose content is new to the index need their vector (stored or to embed).
    this.#applyVectors(
      index,
      live.filter((row) => changedIds.has(row.id)).map(fromRow),
      vectors.filter((_, i) => changedIds.has(live[i]!.id)),
    );
    index.lastSeq = entries[entries.length - 1]!.seq!;
    index.changesSinceSnapshot += entries.length;
    this.#considerSnapshot(ns, index, snapshotDropped);
    return index;
  }

  #applyVectors(index: NamespaceIndex, records: MemoryRecord[], vectors: Array<{ vector: Float32Array | null } | undefined>): void {
    if (!this.#modelId()) return;
    const missing: EmbedJob[] = [];
    records.forEach((record, i) => {
      const stored = vectors[i];
      if (stored) index.setVector(record.id, record.contentHash, stored.vector);
      else missing.push({ ns: record.namespaceKey, id: record.id, hash: record.contentHash, content: record.content });
    });
    if (missing.length) this.#needsVectors(missing);
  }

  /**
   * Records changed without an audit entry (importance aging, use): into the loaded
   * indexes, counted towards their next snapshot. Call after the change committed.
   */
  refresh(records: readonly MemoryRecord[]): void {
    for (const record of records) {
      const index = this.#indexes.get(record.namespaceKey);
      if (!index) continue;
      index.upsert(record);
      index.changesSinceSnapshot++;
    }
  }

  /** Vectors the embedding queue stored: into the loaded index, and counted towards its next snapshot. */
  vectorsStored(jobs: Array<{ ns: string; id: string; hash: string; vector: Float32Array | null }>): void {
    for (const job of jobs) {
      const index = this.#indexes.get(job.ns);
      if (!index) continue;
      index.setVector(job.id, job.hash, job.vector);
      index.changesSinceSnapshot++;
      this.#considerSnapshot(job.ns, index, false);
    }
  }

  /**
   * Marks the namespace's snapshot due when the index is big enough and the stored one is
   * missing (`now`) or lags by a tenth of the records (at least `minRecords` changes).
   */
  #considerSnapshot(ns: string, index: NamespaceIndex, missingOrStale: boolean): void {
    const options = this.#snapshots;
    if (!options || this.#closed || index.records.size < options.minRecords) return;
    if (!missingOrStale && index.changesSinceSnapshot < Math.max(options.minRecords, index.records.size / 10)) return;
    this.#due.add(ns);
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#writeDue().catch(this.#onError);
    }, options.delayMs);
    (this.#timer as { unref?: () => void }).unref?.(); // Node: never keeps a process alive
  }

  /** Writes the snapshots that are due. */
  async #writeDue(): Promise<void> {
    const due = [...this.#due];
    this.#due.clear();
    for (const ns of due) await this.#writeSnapshot(ns);
  }

  async #writeSnapshot(ns: string): Promise<void> {
    if (!this.#indexes.has(ns)) return; // dropped meanwhile: its next load rebuilds and snapshots
    const index = await this.ready(ns);
    const row = captureSnapshot(ns, index, this.#modelId());
    const db = this.#db;
    const written = await withStorage(() =>
      db.transaction('rw', db.indexSnapshots, db.audit, async () => {
        // Only a snapshot of the current state: a forget after the capture has deleted the
        // stored snapshot in its own transaction and must not be undone by this one.
        const last = await db.audit.where('[ns+seq]').between([ns, Dexie.minKey], [ns, Dexie.maxKey]).last();
        if ((last?.seq ?? 0) !== row.lastSeq) return false;
        await db.indexSnapshots.put(row);
        return true;
      }),
    );
    if (written) index.changesSinceSnapshot = 0;
    else if (!this.#closed) this.#considerSnapshot(ns, index, true); // changed meanwhile: again, later
  }

  /**
   * Stops background snapshots and writes, before the database closes, the snapshot of
   * every loaded index that changed since its last one (access statistics included), so
   * the next instance starts where this one ended.
   */
  async close(): Promise<void> {
    const options = this.#snapshots;
    if (options) {
      // Catching up first shows what other instances changed, forgets included (they deleted the stored snapshot).
      for (const ns of [...this.#indexes.keys()]) await this.ready(ns);
    }
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#closed = true;
    if (!options) return;
    for (const [ns, index] of this.#indexes) {
      if (index.changesSinceSnapshot > 0 && index.records.size >= options.minRecords) this.#due.add(ns);
    }
    await this.#writeDue();
  }
}
