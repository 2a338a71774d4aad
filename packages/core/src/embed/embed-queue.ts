import { ZeromemError } from '../public/errors.ts';
import type { StoragePort, VectorRow } from '../store/port.ts';
import { toUnitVector } from './embedder.ts';
import type { Embedder } from '../public/embedder.ts';

/** A record waiting for its embedding. */
export interface EmbedJob {
  ns: string;
  id: string;
  hash: string;
  content: string;
}

/** What the queue hands on once a job's vector is stored (`null`: the model could not embed it). */
export type EmbeddedListener = (done: Array<EmbedJob & { vector: Float32Array | null }>) => void;

/** Texts per embedder call. */
const BATCH = 64;
/**
 * Jobs taken at once: their stored vectors are read in one transaction, and what the
 * embedder makes of them is written in one (or one per {@link FLUSH_MS}). A transaction per
 * call of 64 cost 6x the model's own time on 100k memories (a sync of the file each); each
 * commit also writes again every page of the vectors' hash index it touched (random keys).
 */
const CHUNK = 4096;
/** Longest time embedded vectors wait to be stored (a slow model's first vectors show soon). */
const FLUSH_MS = 250;
/** Longest wait before retrying after the embedder failed. */
const MAX_BACKOFF_MS = 30_000;

/**
 * The write-behind embedding queue: writes never wait for it. Jobs are embedded in
 * batches, one content hash once, and stored under [model+hash], so a reopen or an
 * unchanged update never embeds again. A failing embedder is retried with backoff; its
 * errors go to `onError`, jobs are kept.
 */
export class EmbedQueue {
  readonly #store: StoragePort;
  readonly #embedder: Embedder;
  readonly #onEmbedded: EmbeddedListener;
  readonly #onError: (err: ZeromemError) => void;
  readonly #jobs = new Map<string, EmbedJob>(); // key ns\0id: a newer job for a record replaces the older
  #running: Promise<void> | undefined;
  #idle: Array<{ resolve: () => void; reject: (err: ZeromemError) => void }> = [];
  #backoff = 0;
  #closed = false;

  constructor(store: StoragePort, embedder: Embedder, onEmbedded: EmbeddedListener, onError: (err: ZeromemError) => void) {
    this.#store = store;
    this.#embedder = embedder;
    this.#onEmbedded = onEmbedded;
    this.#onError = onError;
  }

  /** Jobs not yet embedded. */
  get pending(): number {
    return this.#jobs.size;
  }

  /**
   * Queues jobs and starts working off the caller's path. A job for a record whose same
   * content is queued already is not taken: a loaded index asks for the vectors of the
   * records it catches up with, which their write queued a moment before.
   */
  enqueue(jobs: Iterable<EmbedJob>): void {
    for (const job of jobs) {
      const key = `${job.ns}\u0000${job.id}`;
      if (this.#jobs.get(key)?.hash !== job.hash) this.#jobs.set(key, job);
    }
    if (this.#jobs.size && !this.#running && !this.#closed) {
      this.#running = new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() => this.#work());
    }
  }

  /**
   * Resolves when no job is pending; rejects with EMBEDDER_UNAVAILABLE when the embedder
   * fails (the queue keeps its jobs and retries; call again to wait for the retry).
   */
  whenIdle(): Promise<void> {
    if (this.#jobs.size === 0) return Promise.resolve();
    return new Promise((resolve, reject) => this.#idle.push({ resolve, reject }));
  }

  /** Drops the pending jobs (and the text they hold) of records that were forgotten. */
  drop(matches: (ns: string, id: string) => boolean): void {
    for (const [key, job] of this.#jobs) if (matches(job.ns, job.id)) this.#jobs.delete(key);
    this.#settleIdle();
  }

  /** Stops working; pending jobs are dropped (their records get queued again on the next open). */
  close(): void {
    this.#closed = true;
    this.#jobs.clear();
    this.#settleIdle();
  }

  async #work(): Promise<void> {
    while (this.#jobs.size && !this.#closed) {
      const chunk: EmbedJob[] = [];
      for (const job of this.#jobs.values()) {
        if (chunk.push(job) === CHUNK) break;
      }
      try {
        await this.#embedChunk(chunk);
        this.#backoff = 0;
      } catch (err) {
        if (this.#closed) break;
        const failure = embedderFailure(err);
        const waiting = this.#idle;
        this.#idle = [];
        for (const waiter of waiting) waiter.reject(failure);
        this.#onError(failure);
        this.#backoff = Math.min(MAX_BACKOFF_MS, this.#backoff ? this.#backoff * 2 : 250);
        await new Promise((resolve) => setTimeout(resolve, this.#backoff));
      }
    }
    this.#running = undefined;
    this.#settleIdle();
  }

  /**
   * Embeds a chunk of jobs: vectors already stored under [model+hash] are reused (one read),
   * the others embedded in calls of {@link BATCH} and stored together (one write per
   * {@link FLUSH_MS}), each flush handed on to the listener.
   */
  async #embedChunk(chunk: EmbedJob[]): Promise<void> {
    const model = this.#embedder.modelId;
    // By content hash: the same content in several records is embedded once.
    const jobsOf = new Map<string, EmbedJob[]>();
    for (const job of chunk) {
      const same = jobsOf.get(job.hash);
      if (same) same.push(job);
      else jobsOf.set(job.hash, [job]);
    }
    const hashes = [...jobsOf.keys()];
    const stored = await this.#store.read((tx) => tx.getVectors(model, hashes));
    const known: VectorRow[] = [];
    const missing: string[] = [];
    stored.forEach((row, i) => (row ? known.push(row) : missing.push(hashes[i]!)));
    this.#finish(jobsOf, known);
    let rows: VectorRow[] = [];
    let since = performance.now();
    for (let i = 0; i < missing.length; i += BATCH) {
      const part = missing.slice(i, i + BATCH);
      const raw = await this.#embedder.embed(
        part.map((hash) => jobsOf.get(hash)![0]!.content),
        'document',
      );
      part.forEach((hash, j) => rows.push({ model, hash, vector: toUnitVector(raw[j], this.#embedder.dimension) }));
      if (i + BATCH < missing.length && performance.now() - since < FLUSH_MS) continue;
      await this.#store.write(
        async (tx) => {
          // A record forgotten while its text was being embedded must not leave its vector behind.
          const held = await tx.contentHashesInUse(rows.map((row) => row.hash));
          await tx.putVectors(rows.filter((row) => held.has(row.hash)));
        },
        // Not synced on its own: a power cut loses at most vectors, and the next open embeds
        // the records without one again (backfill.ts); records stay synced by their own writes.
        { durable: false },
      );
      this.#finish(jobsOf, rows);
      rows = [];
      since = performance.now();
    }
  }

  /** Hands on the jobs of these vectors (`null`: the model could not embed the text), and takes them off the queue. */
  #finish(jobsOf: ReadonlyMap<string, EmbedJob[]>, rows: readonly VectorRow[]): void {
    const done: Array<EmbedJob & { vector: Float32Array | null }> = [];
    for (const { hash, vector } of rows) {
      for (const job of jobsOf.get(hash)!) {
        const key = `${job.ns}\u0000${job.id}`;
        // Only finish the job if no newer one for the record came in meanwhile (nor a forget took it).
        if (this.#jobs.get(key) !== job) continue;
        this.#jobs.delete(key);
        done.push({ ...job, vector });
      }
    }
    if (done.length) this.#onEmbedded(done);
  }

  #settleIdle(): void {
    if (this.#jobs.size && !this.#closed) return;
    const waiting = this.#idle;
    this.#idle = [];
    for (const waiter of waiting) waiter.resolve();
  }
}

/** An embedder's failure as a coded error; storage errors keep their own code. */
export function embedderFailure(err: unknown): ZeromemError {
  if (err instanceof ZeromemError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ZeromemError('EMBEDDER_UNAVAILABLE', `The embedder failed (${message}); memories stay searchable by words and are embedded when it works again.`, { cause: err });
}
