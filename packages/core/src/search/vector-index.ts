import { createInt8Kernel, type Int8Kernel, type KernelChoice } from './int8-kernel.ts';
import { TopK } from './top-k.ts';

/** A scored vector match: cosine similarity of unit vectors. */
export interface VectorHit {
  id: string;
  score: number;
}

/** Tuning of {@link VectorIndex}; the defaults are measured (test/bench/recall-speed.ts). */
export interface VectorIndexOptions {
  /**
   * Candidates the int8 pass hands to the exact rerank: `max(candidates, 4 × k)`.
   * More is safer and slower (each costs one float dot product). Default 256.
   */
  candidates?: number;
  /** Namespaces with at most this many vectors are scanned exactly (float) instead. Default 2048. */
  exactBelow?: number;
  /** The int8 kernel: `auto` (WebAssembly SIMD where allowed, else JS), `wasm` or `js`. */
  kernel?: KernelChoice;
}

/**
 * The int8 score of a row differs from its exact cosine by a sum of `dimension` rounding
 * errors, close to normal with standard deviation sqrt((rowScale² + queryScale²) / 12)
 * for unit vectors (~5e-4 at 384-d). Rows within this many deviations of the k-th exact
 * score get reranked.
 */
const ERROR_SIGMAS = 6;

/** What the int8 pass hands on: candidate rows, the pool's lowest int8 score, the query's scale. */
interface Coarse {
  rows: Int32Array;
  /** The lowest int8 score (without the query scale) among the candidates; −∞ when the pool is not full. */
  floor: number;
  queryScale: number;
}

/**
 * The rows of one {@link VectorIndex} span as plain typed arrays: the columns
 * `[start, end)` of each row whose non-zero columns all lie there.
 */
export interface PackedSpan {
  start: number;
  end: number;
  /** Per row of the span, its row in the index (an index into {@link PackedVectors.ids}). */
  rows: Int32Array;
  /** rows.length × (end − start) float32 values, row after row. */
  floats: Float32Array;
  /** rows.length int8 rows of (end − start) values, each zero-padded to a multiple of 16. */
  int8?: Int8Array;
}

/** An index's rows as plain typed arrays (see {@link VectorIndex.exportPacked}). */
export interface PackedVectors {
  dimension: number;
  /** Row i's id. */
  ids: string[];
  /** Every row is in exactly one span. */
  spans: PackedSpan[];
  /** Per row: int8 value × scale ≈ float value (left out: computed from the floats). */
  scales?: Float32Array;
}

/** Defaults of {@link VectorIndexOptions}. */
export const VECTOR_INDEX_DEFAULTS = Object.freeze({ candidates: 256, exactBelow: 2048, candidatesPerK: 4 });

/** Pairs of stored vectors {@link VectorIndex.background} samples: ~1 ms at 640 dimensions. */
export const BACKGROUND_PAIRS = 2000;
/** Rows {@link VectorIndex.background} looks at to find an embedding space's vectors (all of them below this). */
const BACKGROUND_ROWS = 4096;

const NOT_MEASURED: CosineBackground = Object.freeze({ mean: 0, sd: 0, pairs: 0, vectors: 0 });

/** Stored vectors whose non-zero columns lie in `[start, end)` (see {@link VectorIndex.background}). */
interface Space {
  start: number;
  end: number;
  /** The rows looked at that are in it. */
  rows: number[];
  /** Vectors of the index in it. */
  vectors: number;
  /** Its background (measured when the space is found). */
  stats: CosineBackground;
}

/** The cosines of unrelated pairs in one embedding space of an index (see {@link VectorIndex.background}). */
export interface CosineBackground {
  /** 0 with `sd` 0 when not measurable (fewer than 3 vectors in the space, or no spread). */
  mean: number;
  sd: number;
  /** Pairs it was measured on (0: not measurable). */
  pairs: number;
  /** Vectors of the index in that space (counted, or estimated from a sample of {@link BACKGROUND_ROWS} rows). */
  vectors: number;
}

/**
 * Most spans an index keeps apart before a vector goes into the full-width span: bounds the
 * kernels of an index whatever its vectors are (an embedder of side-by-side spaces makes one
 * span per space).
 */
const MAX_SPANS = 8;

/**
 * The rows of a {@link VectorIndex} whose non-zero columns all lie in `[start, end)`: only
 * those columns are held, as float32 rows and as int8 rows (with their own kernel), so a
 * vector costs its own model's dimensions, not the whole space's. `start` is a multiple of
 * 16 and `end` one too or the dimension, so a scan over a span adds the same products in
 * the same order as a scan over the whole row (the others are zero).
 */
class Span {
  readonly start: number;
  readonly end: number;
  readonly width: number;
  /** Bytes per int8 row: the width rounded up to 16 (SIMD width), zero-padded. */
  readonly stride: number;
  readonly kernel: Int8Kernel;
  capacity: number;
  data: Float32Array;
  /** Per row of the span, its row in the index. */
  slots: Int32Array;
  size = 0;

  /** @param dataLength `0`: no float rows yet, the caller sets `data` (a restore that adopts its arrays) */
  constructor(start: number, end: number, capacity: number, kernel: KernelChoice, dataLength?: 0) {
    this.start = start;
    this.end = end;
    this.width = end - start;
    this.stride = Math.ceil(this.width / 16) * 16;
    this.kernel = createInt8Kernel(kernel);
    this.capacity = Math.max(1, capacity);
    this.data = new Float32Array(dataLength ?? this.capacity * this.width);
    this.slots = new Int32Array(this.capacity);
    this.kernel.ensure(this.kernelBytes(this.capacity));
  }

  /** Kernel memory: int8 rows, then the query's row, then one Int32 score per row. */
  kernelBytes(capacity: number): number {
    return capacity * this.stride + this.stride + capacity * 4;
  }

  get queryOffset(): number {
    return this.capacity * this.stride;
  }

  get outOffset(): number {
    return this.capacity * this.stride + this.stride;
  }

  get byteLength(): number {
    return this.data.byteLength + this.slots.byteLength + this.kernel.buffer.byteLength;
  }

  /** Appends a row for index row `slot`; returns its row in the span. */
  add(slot: number): number {
    if (this.size === this.capacity) this.#grow(this.capacity * 2);
    this.slots[this.size] = slot;
    return this.size++;
  }

  /** Writes a vector's columns into row `row`; returns its int8 scale. */
  write(row: number, vector: Float32Array): number {
    const values = vector.subarray(this.start, this.end);
    this.data.set(values, row * this.width);
    return quantize(values, new Int8Array(this.kernel.buffer, row * this.stride, this.stride));
  }

  /** Removes row `row` by moving the last row into it; returns the index row that moved (or -1). */
  remove(row: number): number {
    const last = --this.size;
    const rows = new Int8Array(this.kernel.buffer);
    let moved = -1;
    if (row !== last) {
      this.data.copyWithin(row * this.width, last * this.width, (last + 1) * this.width);
      rows.copyWithin(row * this.stride, last * this.stride, (last + 1) * this.stride);
      moved = this.slots[row] = this.slots[last]!;
    }
    this.data.fill(0, last * this.width, (last + 1) * this.width);
    rows.fill(0, last * this.stride, (last + 1) * this.stride);
    return moved;
  }

  /** Float row `row` as `dot`'s base: the value of column j is data[base + j]. */
  base(row: number): number {
    return row * this.width - this.start;
  }

  #grow(capacity: number): void {
    const data = new Float32Array(capacity * this.width);
    data.set(this.data);
    this.data = data;
    const slots = new Int32Array(capacity);
    slots.set(this.slots);
    this.slots = slots;
    // The int8 rows start at 0 and keep their place; the scratch after them moves on.
    this.kernel.ensure(this.kernelBytes(capacity));
    this.capacity = capacity;
  }
}

/**
 * One namespace's vectors, packed twice: float32 rows (exact similarity, the rerank) and
 * int8 rows with a per-row scale (the coarse scan). A search with more than `exactBelow`
 * vectors scans the int8 rows (WebAssembly SIMD: ~4 ms for 100k × 384), keeps the best
 * `max(candidates, 4k)` that `accept` lets through, and reranks those with exact float
 * dot products; its scores are always exact. Removal moves the last row into the hole, so
 * the rows stay dense. Vectors must be unit length (the embedder guarantees it).
 *
 * Rows are held by {@link Span}: a vector that is zero outside some columns (an embedder of
 * side-by-side model spaces, as the bundled one: 128 English columns beside 512 Chinese
 * ones) costs only its columns, and a query scans only the spans it shares columns with;
 * the rows of the others score 0 without being read. Scores, and which rows a search
 * returns, are those of a scan over whole rows: rows keep one order across spans.
 */
export class VectorIndex {
  readonly dimension: number;
  /** Bytes of the query's int8 row: the dimension rounded up to 16. */
  readonly #stride: number;
  readonly #candidates: number;
  readonly #exactBelow: number;
  readonly #kernelChoice: KernelChoice;
  readonly #kind: 'wasm-simd' | 'js';
  #capacity: number;
  /** Row r's int8 values times scales[r] approximate its float values. */
  #scales: Float32Array;
  /** Row r is row rowInSpan[r] of span spanOf[r]. */
  #spanOf: Uint8Array;
  #rowInSpan: Int32Array;
  #spans: Span[] = [];
  /** The query's int8 row, and one Int32 score per row gathered from the spans' scans. */
  #queryInt8: Int8Array;
  #raw: Int32Array;
  /** Largest row scale ever set: bounds every row's quantization error. */
  #maxScale = 0;
  #ids: string[] = [];
  readonly #slots = new Map<string, number>();
  #last: { path: 'exact' | 'int8'; reranked: number } = { path: 'exact', reranked: 0 };
  /** The embedding spaces of the stored vectors and their backgrounds, with the size they were found at. */
  #spaces: { size: number; list: Space[]; mixed: Map<string, CosineBackground> } | undefined;

  constructor(dimension: number, capacity = 64, options: VectorIndexOptions = {}) {
    if (!Number.isInteger(dimension) || dimension < 1) throw new RangeError(`dimension must be a positive integer, got ${dimension}`);
    this.dimension = dimension;
    this.#stride = Math.ceil(dimension / 16) * 16;
    this.#candidates = Math.max(1, Math.floor(options.candidates ?? VECTOR_INDEX_DEFAULTS.candidates));
    this.#exactBelow = Math.max(0, Math.floor(options.exactBelow ?? VECTOR_INDEX_DEFAULTS.exactBelow));
    this.#kernelChoice = options.kernel ?? 'auto';
    this.#kind = createInt8Kernel(this.#kernelChoice).kind;
    this.#capacity = Math.max(1, Math.floor(capacity));
    this.#scales = new Float32Array(this.#capacity);
    this.#spanOf = new Uint8Array(this.#capacity);
    this.#rowInSpan = new Int32Array(this.#capacity);
    this.#raw = new Int32Array(this.#capacity);
    this.#queryInt8 = new Int8Array(this.#stride);
  }

  /** Number of vectors held. */
  get size(): number {
    return this.#ids.length;
  }

  /** Which int8 kernel scans: `wasm-simd` or `js`. */
  get kernel(): 'wasm-simd' | 'js' {
    return this.#kind;
  }

  /** Bytes held in typed arrays (float rows, int8 rows, scales, scratch), not counting ids. */
  get byteLength(): number {
    let bytes = this.#scales.byteLength + this.#spanOf.byteLength + this.#rowInSpan.byteLength + this.#raw.byteLength + this.#queryInt8.byteLength;
    for (const span of this.#spans) bytes += span.byteLength;
    return bytes;
  }

  /** True when `id` has a vector. */
  has(id: string): boolean {
    return this.#slots.has(id);
  }

  /** Adds or replaces the vector of `id`. */
  set(id: string, vector: Float32Array): void {
    if (vector.length !== this.dimension) throw new RangeError(`vector has ${vector.length} dimensions, the index ${this.dimension}`);
    const spanIndex = this.#spanFor(vector);
    const span = this.#spans[spanIndex]!;
    let slot = this.#slots.get(id);
    let row: number;
    if (slot === undefined) {
      slot = this.#ids.length;
      if (slot === this.#capacity) this.#grow(this.#capacity * 2);
      this.#ids.push(id);
      this.#slots.set(id, slot);
      row = span.add(slot);
    } else if (this.#spanOf[slot] === spanIndex) {
      row = this.#rowInSpan[slot]!;
    } else {
      this.#leaveSpan(slot);
      row = span.add(slot);
    }
    this.#spanOf[slot] = spanIndex;
    this.#rowInSpan[slot] = row;
    const scale = span.write(row, vector);
    this.#scales[slot] = scale;
    if (scale > this.#maxScale) this.#maxScale = scale;
  }

  /** Removes the vector of `id` if there is one. */
  remove(id: string): void {
    const slot = this.#slots.get(id);
    if (slot === undefined) return;
    this.#leaveSpan(slot);
    const last = this.#ids.length - 1;
    if (slot !== last) {
      const lastId = this.#ids[last]!;
      this.#scales[slot] = this.#scales[last]!;
      this.#spanOf[slot] = this.#spanOf[last]!;
      this.#rowInSpan[slot] = this.#rowInSpan[last]!;
      this.#spans[this.#spanOf[slot]!]!.slots[this.#rowInSpan[slot]!] = slot;
      this.#ids[slot] = lastId;
      this.#slots.set(lastId, slot);
    }
    this.#scales[last] = 0;
    this.#ids.pop();
    this.#slots.delete(id);
  }

  /** Takes row `slot` out of its span (the span's last row moves into its place). */
  #leaveSpan(slot: number): void {
    const moved = this.#spans[this.#spanOf[slot]!]!.remove(this.#rowInSpan[slot]!);
    if (moved >= 0) this.#rowInSpan[moved] = this.#rowInSpan[slot]!;
  }

  /**
   * The span a vector goes into: the narrowest that holds its non-zero columns, or a new
   * one of just those columns (in blocks of 16); past {@link MAX_SPANS}, the full width.
   */
  #spanFor(vector: Float32Array): number {
    const columns = nonZeroColumns(vector);
    const zero = columns.start === columns.end;
    const start = zero ? 0 : columns.start & ~15;
    const end = zero ? Math.min(16, this.dimension) : Math.min(this.dimension, (columns.end + 15) & ~15);
    let best = -1;
    this.#spans.forEach((span, i) => {
      if (span.start <= start && span.end >= end && (best < 0 || span.width < this.#spans[best]!.width)) best = i;
    });
    if (best >= 0) return best;
    const [from, to] = this.#spans.length < MAX_SPANS ? [start, end] : [0, this.dimension];
    const full = this.#spans.findIndex((span) => span.start === from && span.end === to);
    if (full >= 0) return full;
    this.#spans.push(new Span(from, to, Math.min(this.#capacity, 64), this.#kernelChoice));
    return this.#spans.length - 1;
  }

  /** Cosine of rows i and j: the columns their spans share (the others are zero in one of them). */
  #pairCosine(i: number, j: number): number {
    const a = this.#spans[this.#spanOf[i]!]!;
    const b = this.#spans[this.#spanOf[j]!]!;
    const start = Math.max(a.start, b.start);
    const end = Math.min(a.end, b.end);
    return end > start ? dot(a.data, a.base(this.#rowInSpan[i]!), b.data, b.base(this.#rowInSpan[j]!), start, end) : 0;
  }

  /** Cosine of row `slot` with `query` over the query's columns `[start, end)`. */
  #score(slot: number, query: Float32Array, start: number, end: number): number {
    const span = this.#spans[this.#spanOf[slot]!]!;
    const from = Math.max(start, span.start);
    const to = Math.min(end, span.end);
    return to > from ? dot(span.data, span.base(this.#rowInSpan[slot]!), query, 0, from, to) : 0;
  }

  /**
   * How similar two of this index's vectors are by chance, in the embedding space of
   * `query` (default: every vector): mean and standard deviation of the cosines of up to
   * {@link BACKGROUND_PAIRS} pairs of distinct stored vectors of that space (every pair when
   * there are few, else a fixed pseudo-random sample, so the same index gives the same
   * figures). Most pairs of memories are unrelated, so this is the embedder's own scale on
   * this store's texts: what a cosine must stand above to mean something.
   *
   * An embedder of side-by-side model spaces (the bundled one) writes each text in its
   * model's columns and leaves the others zero; another model's cosines are not this one's
   * scale, and its vectors cannot be compared with the query. So the stored vectors are
   * grouped into spaces: vectors whose non-zero columns (first to last) overlap are of one
   * space (dense or hashed vectors of a single model are all one). The query's space is the
   * spaces its own non-zero columns overlap. Computed when first asked and again once the
   * index has grown or shrunk by an eighth (or changed at all, for a query outside every
   * known space);
   * `pairs` 0 with fewer than 3 vectors in the space or no spread.
   */
  background(query?: Float32Array): CosineBackground {
    const n = this.#ids.length;
    let spaces = this.#spaces;
    const stale = !spaces || Math.abs(spaces.size - n) * 8 > spaces.size;
    const span = query ? nonZeroColumns(query) : undefined;
    const overlaps = (space: Space) => !span || (space.start < span.end && space.end > span.start);
    // A query of a space not seen yet is looked for again only if the index has changed since.
    if (stale || (span && spaces!.size !== n && !spaces!.list.some(overlaps))) spaces = this.#spaces = { size: n, list: this.#findSpaces(), mixed: new Map() };
    const mine = spaces!.list.filter(overlaps);
    if (mine.length === 0) return NOT_MEASURED;
    if (mine.length === 1) return mine[0]!.stats;
    // A query over several spaces (a conversation in two languages): their pairs together,
    // on the rows as they are now, kept until the spaces are found again.
    const key = mine.map((space) => space.start).join(',');
    let stats = spaces!.mixed.get(key);
    if (!stats) {
      const now = this.#findSpaces(true).filter(overlaps);
      stats = this.#pairStats(
        now.flatMap((space) => space.rows),
        now.reduce((sum, space) => sum + space.vectors, 0),
      );
      spaces!.mixed.set(key, stats);
    }
    return stats;
  }

  /**
   * The spaces of the stored vectors: each row's non-zero columns, first to last, as an
   * interval; overlapping intervals merged. Looks at every row, or at {@link BACKGROUND_ROWS}
   * evenly spread (then each space's vector count is scaled up).
   */
  #findSpaces(rowsOnly = false): Space[] {
    const n = this.#ids.length;
    const looked = Math.min(n, BACKGROUND_ROWS);
    const spans: Array<{ row: number; first: number; last: number }> = [];
    for (let i = 0; i < looked; i++) {
      const row = Math.floor((i * n) / looked);
      // A row holds only its span's columns; the others are zero.
      const span = this.#spans[this.#spanOf[row]!]!;
      const base = span.base(this.#rowInSpan[row]!);
      const columns = nonZeroColumns(span.data.subarray(base + span.start, base + span.end));
      if (columns.start === columns.end) continue; // a zero row belongs nowhere
      spans.push({ row, first: span.start + columns.start, last: span.start + columns.end - 1 });
    }
    spans.sort((a, b) => a.first - b.first);
    const spaces: Space[] = [];
    for (const { row, first, last } of spans) {
      const space = spaces[spaces.length - 1];
      if (space && first < space.end) {
        space.end = Math.max(space.end, last + 1);
        space.rows.push(row);
      } else {
        spaces.push({ start: first, end: last + 1, rows: [row], vectors: 0, stats: NOT_MEASURED });
      }
    }
    for (const space of spaces) {
      space.vectors = n === looked ? space.rows.length : Math.round((space.rows.length * n) / looked);
      // Measured now: a removal moves rows, so the rows found are only good until the next change.
      if (!rowsOnly) space.stats = this.#pairStats(space.rows, space.vectors);
    }
    return spaces;
  }

  /** Mean and spread of the cosines of pairs of these rows (all pairs when few, else a fixed sample). */
  #pairStats(rows: readonly number[], vectors: number): CosineBackground {
    const m = rows.length;
    if (m < 3) return { mean: 0, sd: 0, pairs: 0, vectors };
    let sum = 0;
    let sumSq = 0;
    let pairs = 0;
    const add = (i: number, j: number) => {
      const c = this.#pairCosine(rows[i]!, rows[j]!);
      sum += c;
      sumSq += c * c;
      pairs++;
    };
    if ((m * (m - 1)) / 2 <= BACKGROUND_PAIRS) {
      for (let i = 0; i < m; i++) for (let j = i + 1; j < m; j++) add(i, j);
    } else {
      const next = sampler(m);
      while (pairs < BACKGROUND_PAIRS) {
        const i = next();
        const j = next();
        if (i !== j) add(i, j);
      }
    }
    const mean = sum / pairs;
    const sd = Math.sqrt(Math.max(0, sumSq / pairs - mean * mean));
    return sd > 1e-6 ? { mean, sd, pairs, vectors } : { mean: 0, sd: 0, pairs: 0, vectors };
  }

  /** Cosine similarity of `id`'s vector to `query`, or undefined when `id` has none. */
  similarity(id: string, query: Float32Array): number | undefined {
    const slot = this.#slots.get(id);
    if (slot === undefined) return undefined;
    return this.#score(slot, query, 0, this.dimension);
  }

  /**
   * The k most similar vectors to `query` (a unit vector), best first, with exact scores.
   * Only ids that `accept` returns true for are considered; k of them come back when that
   * many exist. Above `exactBelow` vectors: int8 scan, exact rerank of the best
   * candidates, then of every other row whose int8 score is within the quantization
   * error margin of the k-th exact score (so dense near-duplicates cannot hide a hit).
   */
  search(query: Float32Array, k: number, accept?: (id: string) => boolean): VectorHit[] {
    const n = this.#ids.length;
    k = Math.min(Math.floor(k), n);
    if (!(k > 0)) return [];
    const pool = Math.max(this.#candidates, VECTOR_INDEX_DEFAULTS.candidatesPerK * k);
    if (n <= this.#exactBelow || n <= pool) return this.#exact(query, k, accept);
    const span = querySpan(query, this.#stride);
    const coarse = this.#coarse(query, pool, span, accept);
    if (!coarse) return this.#exact(query, k, accept); // a zero query: every score is 0
    const top = new TopK(k);
    // TopK breaks ties by row, whatever order rows come in: the k kept are the exact scan's,
    // ties included, though coarse.rows come in heap order and the near rows after them.
    for (const row of coarse.rows) top.push(row, this.#score(row, query, span.start, span.floatEnd));
    let reranked = coarse.rows.length;
    // Fewer accepted rows than the pool: the coarse pass kept them all, nothing can be missing.
    if (coarse.rows.length === pool && top.size === k) {
      // A row outside the candidates has int8 score <= floor; it can still beat the k-th
      // exact score only if the floor is within the error margin of it.
      const margin = ERROR_SIGMAS * Math.sqrt((this.#maxScale * this.#maxScale + coarse.queryScale * coarse.queryScale) / 12);
      if (coarse.floor * coarse.queryScale > top.floor - margin) reranked += this.#rerankNear(query, span, top, coarse, margin, accept);
    }
    this.#last = { path: 'int8', reranked };
    return this.#hits(top);
  }

  /** Rows not yet reranked whose int8 score is within `margin` of the k-th exact score. */
  #rerankNear(query: Float32Array, span: QuerySpan, top: TopK, coarse: Coarse, margin: number, accept: ((id: string) => boolean) | undefined): number {
    const n = this.#ids.length;
    const raw = this.#raw;
    const scales = this.#scales;
    const seen = new Uint8Array(n);
    for (const row of coarse.rows) seen[row] = 1;
    let count = 0;
    let threshold = (top.floor - margin) / coarse.queryScale;
    for (let row = 0; row < n; row++) {
      if (raw[row]! * scales[row]! > threshold && seen[row] === 0 && (!accept || accept(this.#ids[row]!))) {
        top.push(row, this.#score(row, query, span.start, span.floatEnd));
        threshold = (top.floor - margin) / coarse.queryScale;
        count++;
      }
    }
    return count;
  }

  /** How the last {@link search} ran: `exact` (float scan) or `int8`, and how many float rows it reranked. */
  get lastSearch(): { path: 'exact' | 'int8'; reranked: number } {
    return this.#last;
  }

  /** {@link search} without the int8 pass: every float row scored. The reference for tests. */
  searchExact(query: Float32Array, k: number, accept?: (id: string) => boolean): VectorHit[] {
    k = Math.min(Math.floor(k), this.#ids.length);
    if (!(k > 0)) return [];
    return this.#exact(query, k, accept);
  }

  #exact(query: Float32Array, k: number, accept: ((id: string) => boolean) | undefined): VectorHit[] {
    const n = this.#ids.length;
    const { start, floatEnd } = querySpan(query, this.#stride);
    const top = new TopK(k);
    let floor = top.floor;
    for (let row = 0; row < n; row++) {
      const score = this.#score(row, query, start, floatEnd);
      if (score > floor && (!accept || accept(this.#ids[row]!))) {
        top.push(row, score);
        floor = top.floor;
      }
    }
    this.#last = { path: 'exact', reranked: n };
    return this.#hits(top);
  }

  /** The `pool` best rows by int8 score among accepted ids, or null for a zero query. */
  #coarse(query: Float32Array, pool: number, span: QuerySpan, accept: ((id: string) => boolean) | undefined): Coarse | null {
    const n = this.#ids.length;
    const queryScale = quantize(query, this.#queryInt8);
    if (queryScale === 0) return null;
    const raw = this.#raw.subarray(0, n);
    raw.fill(0);
    for (const rows of this.#spans) {
      // Only the columns where the query is not zero can add to a score: the scan reads
      // just those of each span; a span with none of them leaves its rows at 0.
      const from = Math.max(span.start, rows.start);
      const to = Math.min(span.int8End, rows.start + rows.stride);
      if (rows.size === 0 || to <= from) continue;
      const { kernel, queryOffset, outOffset, size, slots } = rows;
      new Int8Array(kernel.buffer, queryOffset, rows.stride).set(this.#queryInt8.subarray(rows.start, rows.start + rows.stride));
      kernel.dot(from - rows.start, size, rows.stride, to - from, queryOffset + from - rows.start, outOffset);
      const out = new Int32Array(kernel.buffer, outOffset, size);
      for (let r = 0; r < size; r++) raw[slots[r]!] = out[r]!;
    }
    // Usually (no filter, or one that rejects none of the best rows) `accept` is asked only
    // about the pool; when it rejects one, the selection runs again asking about every
    // row that could get in, as the exact scan does.
    const first = this.#select(raw, pool, undefined);
    if (!accept || first.rows.every((row) => accept(this.#ids[row]!))) return { ...first, queryScale };
    return { ...this.#select(raw, pool, accept), queryScale };
  }

  /** The `pool` best rows by int8 score (times the row scale) among accepted ids. */
  #select(raw: Int32Array, pool: number, accept: ((id: string) => boolean) | undefined): { rows: Int32Array; floor: number } {
    const n = raw.length;
    const scales = this.#scales;
    const ids = this.#ids;
    const top = new TopK(pool);
    let floor = top.floor;
    for (let row = 0; row < n; row++) {
      // raw × row scale × query scale ≈ the cosine; the query scale is the same for all rows.
      const score = raw[row]! * scales[row]!;
      if (score > floor && (!accept || accept(ids[row]!))) {
        top.push(row, score);
        floor = top.floor;
      }
    }
    return { rows: top.items(), floor };
  }

  #hits(top: TopK): VectorHit[] {
    return top.sorted().map(({ item, score }) => ({ id: this.#ids[item]!, score }));
  }

  /**
   * Copies of the packed rows, for persisting an index (e.g. one IndexedDB value per
   * namespace) and restoring it with {@link VectorIndex.fromPacked} instead of calling
   * `set` per vector. Row i belongs to `ids[i]`; each span holds its rows' columns only.
   * `int8: false` leaves the int8 rows and scales out (a fifth of the bytes at 4 bytes a
   * value; {@link fromPacked} computes them again from the floats).
   */
  exportPacked({ int8 = true }: { int8?: boolean } = {}): PackedVectors {
    if (!int8) {
      const { scales: _scales, spans, ...rest } = this.exportPacked();
      return { ...rest, spans: spans.map(({ int8: _int8, ...span }) => span) };
    }
    return {
      dimension: this.dimension,
      ids: [...this.#ids],
      spans: this.#spans
        .filter((span) => span.size > 0)
        .map((span) => ({
          start: span.start,
          end: span.end,
          rows: span.slots.slice(0, span.size),
          floats: span.data.slice(0, span.size * span.width),
          int8: new Int8Array(span.kernel.buffer, 0, span.size * span.stride).slice(),
        })),
      scales: this.#scales.slice(0, this.#ids.length),
    };
  }

  /**
   * An index holding exactly the packed rows (from {@link exportPacked}); the int8 rows
   * and `scales` may be left out, they are then computed from the floats. With `adopt`,
   * the index takes the spans' `floats` over instead of copying them (100k × 384: 150 MB
   * not allocated twice); the caller must not use those arrays afterwards.
   * @throws RangeError when the arrays do not fit together, or an id repeats
   */
  static fromPacked(packed: PackedVectors, options: VectorIndexOptions = {}, { adopt = false }: { adopt?: boolean } = {}): VectorIndex {
    const { dimension, ids, spans, scales } = packed;
    const n = ids.length;
    const index = new VectorIndex(dimension, Math.max(n, 1), options);
    if (spans.length > MAX_SPANS + 1) throw new RangeError(`${spans.length} spans, at most ${MAX_SPANS + 1}`);
    if (scales && scales.length !== n) throw new RangeError(`scales (${scales.length}) do not fit ${n} rows`);
    const withInt8 = scales !== undefined && spans.every((span) => span.int8 !== undefined);
    const placed = new Uint8Array(n);
    for (const packedSpan of spans) {
      const { start, end, rows, floats } = packedSpan;
      if (!(Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start % 16 === 0 && end > start && end <= dimension && (end === dimension || end % 16 === 0))) {
        throw new RangeError(`span [${start}, ${end}) does not fit ${dimension} dimensions in blocks of 16`);
      }
      const span = new Span(start, end, Math.max(rows.length, 1), index.#kernelChoice, adopt && rows.length > 0 ? 0 : undefined);
      if (floats.length !== rows.length * span.width) throw new RangeError(`span [${start}, ${end}) floats hold ${floats.length} values, ${rows.length} rows need ${rows.length * span.width}`);
      if (withInt8 && packedSpan.int8!.length !== rows.length * span.stride) throw new RangeError(`span [${start}, ${end}) int8 rows (${packedSpan.int8!.length}) do not fit ${rows.length} rows of ${span.stride}`);
      if (adopt && rows.length > 0) span.data = floats;
      else span.data.set(floats);
      const spanIndex = index.#spans.push(span) - 1;
      for (let r = 0; r < rows.length; r++) {
        const slot = rows[r]!;
        if (!(slot >= 0 && slot < n) || placed[slot]) throw new RangeError(`row ${slot} is out of range or in two spans`);
        placed[slot] = 1;
        span.slots[r] = slot;
        index.#spanOf[slot] = spanIndex;
        index.#rowInSpan[slot] = r;
      }
      span.size = rows.length;
      if (withInt8) new Int8Array(span.kernel.buffer, 0, rows.length * span.stride).set(packedSpan.int8!);
      else for (let r = 0; r < rows.length; r++) index.#scales[rows[r]!] = quantize(floats.subarray(r * span.width, (r + 1) * span.width), new Int8Array(span.kernel.buffer, r * span.stride, span.stride));
    }
    if (placed.indexOf(0) >= 0) throw new RangeError(`row ${placed.indexOf(0)} is in no span`);
    for (let slot = 0; slot < n; slot++) {
      const id = ids[slot]!;
      if (index.#slots.has(id)) throw new RangeError(`id ${id} appears twice`);
      index.#slots.set(id, slot);
    }
    index.#ids = [...ids];
    if (withInt8) index.#scales.set(scales);
    let max = 0;
    for (let slot = 0; slot < n; slot++) max = Math.max(max, index.#scales[slot]!);
    index.#maxScale = max;
    return index;
  }

  #grow(capacity: number): void {
    const grown = <T extends Float32Array | Uint8Array | Int32Array>(array: T, make: (length: number) => T): T => {
      const next = make(capacity);
      next.set(array);
      return next;
    };
    this.#scales = grown(this.#scales, (length) => new Float32Array(length));
    this.#spanOf = grown(this.#spanOf, (length) => new Uint8Array(length));
    this.#rowInSpan = grown(this.#rowInSpan, (length) => new Int32Array(length));
    this.#raw = new Int32Array(capacity);
    this.#capacity = capacity;
  }
}

/** The columns from a vector's first non-zero value to its last, `[start, end)` (empty for a zero vector). */
function nonZeroColumns(vector: Float32Array): { start: number; end: number } {
  let start = 0;
  while (start < vector.length && vector[start] === 0) start++;
  let end = vector.length;
  while (end > start && vector[end - 1] === 0) end--;
  return { start, end };
}

/** A fixed pseudo-random sequence of row numbers below `n` (xorshift32): the same index gives the same background. */
function sampler(n: number): () => number {
  let seed = 0x9e3779b9;
  return () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
}

/**
 * Writes round(v × 127 / max|v|) into `out` (values in [-127, 127]) and returns the scale
 * that maps them back (max|v| / 127); 0 for a zero (or non-finite) vector, which gets zeros.
 */
function quantize(vector: Float32Array, out: Int8Array): number {
  const dim = vector.length;
  let max = 0;
  for (let j = 0; j < dim; j++) {
    const a = Math.abs(vector[j]!);
    if (a > max) max = a;
  }
  if (!(max > 0) || !Number.isFinite(max)) {
    out.fill(0);
    return 0;
  }
  const factor = 127 / max;
  for (let j = 0; j < dim; j++) out[j] = Math.round(vector[j]! * factor);
  out.fill(0, dim);
  return max / 127;
}

/**
 * Where a query is not zero, in whole 16-column blocks: `start` (a multiple of 16, the
 * first such block), `int8End` (the end of the last such block, at most the int8 stride)
 * and `floatEnd` (the same, at most the dimension). Columns outside add nothing to any
 * score, so a scan over `[start, end)` gives the scores of a scan over all of them.
 */
interface QuerySpan {
  start: number;
  int8End: number;
  floatEnd: number;
}

function querySpan(query: Float32Array, stride: number): QuerySpan {
  const columns = nonZeroColumns(query);
  if (columns.start === columns.end) return { start: 0, int8End: stride, floatEnd: query.length };
  const start = columns.start & ~15;
  const int8End = Math.min(stride, (columns.end + 15) & ~15);
  return { start, int8End, floatEnd: Math.min(query.length, int8End) };
}

/**
 * Dot product over the columns `[start, end)` of two rows: column j of one is
 * `a[aBase + j]`, of the other `b[bBase + j]` (a query: `bBase` 0). Search, similarity and
 * the background share it: equal scores (`start` a multiple of 4 keeps every product in
 * the accumulator it has in a scan of whole rows from column 0, and the columns left out
 * are zero in one of the two).
 */
function dot(a: Float32Array, aBase: number, b: Float32Array, bBase: number, start: number, end: number): number {
  // Four accumulators: independent chains let the CPU overlap the multiply-adds.
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const tail = start + ((end - start) & ~3);
  let j = start;
  for (; j < tail; j += 4) {
    s0 += a[aBase + j]! * b[bBase + j]!;
    s1 += a[aBase + j + 1]! * b[bBase + j + 1]!;
    s2 += a[aBase + j + 2]! * b[bBase + j + 2]!;
    s3 += a[aBase + j + 3]! * b[bBase + j + 3]!;
  }
  for (; j < end; j++) s0 += a[aBase + j]! * b[bBase + j]!;
  return s0 + s1 + s2 + s3;
}
