import type { EmbedJob } from '../embed/embed-queue.ts';
import { heatKey, type StoragePort } from '../store/port.ts';
import { fromRow, type RecordRow } from '../store/row.ts';
import { changesText } from '../model/changes-text.ts';
import type { MemoryRecord } from '../public/memory-record.ts';
import { restoreSnapshot, type HeatRow, type IndexSnapshotRow } from './index-snapshot.ts';
import { NamespaceIndex } from './namespace-index.ts';
import { SnapshotWriter } from './snapshot-writer.ts';
import type { IndexSnapshotOptions } from '../public/options.ts';

/** Records held in loaded indexes before the least recently searched namespaces are dropped. */
const DEFAULT_MAX_INDEXED_RECORDS = 250_000;

/**
 * Keeps one {@link NamespaceIndex} per namespace that has been searched: built on first
 * use from the store, then caught up before each search from the audit log, which every
 * write of every instance (other tabs included) appends to in the same transaction.
 * Least recently searched namespaces are dropped when the loaded indexes hold more than
 * `maxIndexedRecords` records (they are rebuilt when searched again).
 *
 * Big namespaces are snapshotted to the store by a {@link SnapshotWriter}; a new instance
 * restores the snapshot and replays the audit log after it instead of reading every row
 * and vector back (100k memories: about 2 s instead of 12-30 s).
 */
export class IndexManager {
  readonly #store: StoragePort;
  readonly #modelId: () => string | undefined;
  readonly #needsVectors: (jobs: EmbedJob[]) => void;
  readonly #indexes = new Map<string, NamespaceIndex>();
  readonly #pending = new Map<string, Promise<NamespaceIndex>>();
  /** Per namespace, the catch-up that runs after the pending one (for callers that came during it). */
  readonly #next = new Map<string, Promise<NamespaceIndex>>();
  #unfollow: (() => void) | undefined;
  #following: Promise<void> | undefined;
  #followAgain = false;
  #closing = false;
  readonly #maxIndexedRecords: number;
  readonly #snapshots: SnapshotWriter | undefined;

  /**
   * @param modelId the current embedder's model id (undefined: no vectors)
   * @param needsVectors receives records whose vector is not stored yet
   * @param options `snapshots: false` turns index snapshots off; `onError` receives failures of background snapshot writes;
   * `embedding` is true while vectors are still being embedded (a due snapshot waits for them, snapshot-writer.ts)
   */
  constructor(
    store: StoragePort,
    modelId: () => string | undefined,
    needsVectors: (jobs: EmbedJob[]) => void,
    options: { maxIndexedRecords?: number; snapshots?: IndexSnapshotOptions | false; onError: (err: unknown) => void; embedding?: () => boolean },
  ) {
    this.#store = store;
    this.#maxIndexedRecords = options.maxIndexedRecords ?? DEFAULT_MAX_INDEXED_RECORDS;
    this.#modelId = modelId;
    this.#needsVectors = needsVectors;
    if (options.snapshots !== false) {
      const current = async (ns: string) => (this.#indexes.has(ns) ? this.ready(ns) : undefined);
      this.#snapshots = new SnapshotWriter(store, modelId, current, options.snapshots ?? {}, options.onError, options.embedding);
    }
  }

  /**
   * The namespace's index, current with the store (every write committed before the call).
   * Callers that arrive while a load or catch-up runs share one more after it: the running
   * one may have read the audit log before their own writes committed.
   */
  ready(ns: string): Promise<NamespaceIndex> {
    const running = this.#pending.get(ns);
    if (!running) return this.#start(ns, true);
    let next = this.#next.get(ns);
    if (!next) {
      next = running
        .catch(() => undefined)
        .then(() => {
          this.#next.delete(ns);
          return this.#pending.get(ns) ?? this.#start(ns, true);
        });
      this.#next.set(ns, next);
    }
    return next;
  }

  /** Loads or catches up the namespace's index; `searched` makes it the most recently used (a background catch-up neither reorders nor brings back an evicted index). */
  #start(ns: string, searched: boolean): Promise<NamespaceIndex> {
    const work = (async () => {
      const existing = this.#indexes.get(ns);
      const index = existing ? await this.#catchUp(ns, existing) : await this.#load(ns);
      if (searched) {
        this.#indexes.delete(ns); // re-insert: the Map's order is the recency order
        this.#indexes.set(ns, index);
        this.#evict();
      }
      return index;
    })().finally(() => this.#pending.delete(ns));
    this.#pending.set(ns, work);
    return work;
  }

  /**
   * Loaded indexes follow the audit log as writes commit (this process's, and the ones the
   * engine sees of other processes), in the background, so a recall finds at most the last
   * few entries to apply: over 10k writes one by one, the first recall after them paid the
   * whole catch-up (p99 990 ms; docs/BENCHMARKS.md, issue 32). One catch-up runs at a
   * time; commits during it make one more. Listening starts with the first loaded index.
   */
  #follow(): void {
    if (this.#unfollow || this.#closing) return;
    this.#unfollow = this.#store.onAuditWrites(() => this.#catchUpSoon());
  }

  #catchUpSoon(): void {
    if (this.#following) {
      this.#followAgain = true;
      return;
    }
    this.#following = (async () => {
      do {
        this.#followAgain = false;
        // After the committing call has returned to its caller, not inside its transaction.
        await new Promise((resolve) => setTimeout(resolve, 0));
        for (const ns of this.loadedKeys()) {
          if (this.#closing) return;
          if (this.#pending.has(ns) || this.#next.has(ns)) continue; // a running load or catch-up reads the log itself
          // A failure here is a recall's to report: its own catch-up reads the same entries again.
          await this.#start(ns, false).catch(() => undefined);
        }
      } while (this.#followAgain && !this.#closing);
    })().finally(() => (this.#following = undefined));
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
    this.#follow();
    const restored = this.#snapshots ? await this.#restore(ns) : undefined;
    if (restored) return restored;
    const index = await this.#build(ns);
    this.#snapshots?.consider(ns, index, true);
    return index;
  }

  /** The namespace's snapshot, restored and caught up; undefined when there is none (or it is unusable). */
  async #restore(ns: string): Promise<NamespaceIndex | undefined> {
    // The store holds the rows captureSnapshot and captureHeat made (it knows only their key).
    const { row, heat } = await this.#store.read(async (tx) => ({
      row: (await tx.getSnapshot(ns)) as IndexSnapshotRow | undefined,
      heat: (await tx.getSnapshot(heatKey(ns))) as HeatRow | undefined,
    }));
    if (!row) return undefined;
    const model = this.#modelId();
    const restored = await restoreSnapshot(row, model, heat);
    if (!restored) return undefined;
    const { index, withoutVector } = restored;
    if (model && withoutVector.length) {
      // Embedded after the snapshot was taken (or another model): stored vectors or the queue.
      const vectors = await this.#store.read((tx) => tx.getVectors(model, withoutVector.map((record) => record.contentHash)));
      this.#applyVectors(index, withoutVector, vectors);
      index.changesSinceSnapshot += withoutVector.length;
    }
    const current = await this.#catchUp(ns, index);
    this.#snapshots?.consider(ns, current, false);
    return current;
  }

  /** Reads every row (and vector) of the namespace and indexes them. */
  async #build(ns: string): Promise<NamespaceIndex> {
    const model = this.#modelId();
    const { rows, lastSeq, vectors } = await this.#store.read(async (tx) => {
      const lastSeq = await tx.lastAuditSeq(ns);
      const rows = await tx.namespaceRecords(ns);
      const vectors = model ? await tx.getVectors(model, rows.map((row) => row.contentHash)) : [];
      return { rows, lastSeq, vectors };
    });
    const index = new NamespaceIndex();
    index.lastSeq = lastSeq;
    const records = rows.map(fromRow);
    index.addMany(records);
    this.#applyVectors(index, records, vectors);
    return index;
  }

  async #catchUp(ns: string, index: NamespaceIndex): Promise<NamespaceIndex> {
    const model = this.#modelId();
    // The log's entries and the rows in one read: the rows then show exactly the writes of
    // the entries read. In two, a version of a key committed between them could show in
    // its sibling's row (closed by it) without its own entry; forgotten before the next
    // catch-up, its key was never known, and the sibling stayed closed in the index.
    const caughtUp = await this.#store.read(async (tx) => {
      const entries = await tx.auditAfter(ns, index.lastSeq);
      if (entries.length === 0) return undefined;
      const ids = [...new Set(entries.map((entry) => entry.id))];
      const rows = await tx.getRecords(ids.map((id) => [ns, id] as const));
      const live = rows.filter((row): row is RecordRow => row !== undefined);
      const vectors = model ? await tx.getVectors(model, live.map((row) => row.contentHash)) : [];
      // A version of a fact key came or went: the other versions' intervals were derived
      // again without an audit entry of their own (write/settle-keys.ts).
      const keys = new Set<string>();
      rows.forEach((row, i) => {
        const factKey = row ? row.key : index.records.get(ids[i]!)?.key;
        if (factKey) keys.add(factKey);
      });
      const siblings: RecordRow[] = [];
      for (const factKey of keys) siblings.push(...(await tx.recordsByKey(ns, factKey)));
      return { entries, ids, rows, live, vectors, siblings };
    });
    if (!caughtUp) return index;
    const { entries, ids, rows, live, vectors, siblings } = caughtUp;
    for (const row of siblings) if (index.records.has(row.id)) index.upsert(fromRow(row));
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
    this.#snapshots?.consider(ns, index, snapshotDropped);
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
    const touched = new Set<string>();
    for (const job of jobs) {
      const index = this.#indexes.get(job.ns);
      if (!index) continue;
      index.setVector(job.id, job.hash, job.vector);
      index.changesSinceSnapshot++;
      touched.add(job.ns);
    }
    // Once per namespace and batch, not per vector.
    for (const ns of touched) this.#snapshots?.consider(ns, this.#indexes.get(ns)!, false);
  }

  /** Resolves once no index snapshot is due or being written (for tests and benchmarks). */
  async snapshotsIdle(): Promise<void> {
    await this.#snapshots?.idle();
  }

  /**
   * Catches every loaded index up (other instances' forgets deleted stored snapshots) and
   * writes the snapshots that are due, before the database closes.
   */
  async close(): Promise<void> {
    this.#closing = true;
    this.#unfollow?.();
    await this.#following;
    if (!this.#snapshots) return;
    for (const ns of [...this.#indexes.keys()]) await this.ready(ns);
    await this.#snapshots.close(this.#indexes);
  }
}
