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

/** An index's rows as plain typed arrays (see {@link VectorIndex.exportPacked}). */
export interface PackedVectors {
  dimension: number;
  /** Row i's id. */
  ids: string[];
  /** ids.length × dimension float32 values, row after row. */
  floats: Float32Array;
  /** ids.length rows of int8 values, each zero-padded to a multiple of 16. */
  int8: Int8Array;
  /** Per row: int8 value × scale ≈ float value. */
  scales: Float32Array;
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
 * One namespace's vectors, packed twice: float32 rows (exact similarity, the rerank) and
 * int8 rows with a per-row scale (the coarse scan). A search with more than `exactBelow`
 * vectors scans the int8 rows (WebAssembly SIMD: ~4 ms for 100k × 384), keeps the best
 * `max(candidates, 4k)` that `accept` lets through, and reranks those with exact float
 * dot products; its scores are always exact. Removal moves the last row into the hole, so
 * the rows stay dense. Vectors must be unit length (the embedder guarantees it).
 */
export class VectorIndex {
  readonly dimension: number;
  /** Bytes per int8 row: the dimension rounded up to 16 (SIMD width), zero-padded. */
  readonly #stride: number;
  readonly #candidates: number;
  readonly #exactBelow: number;
  readonly #kernel: Int8Kernel;
  #capacity: number;
  #data: Float32Array;
  /** Row r's int8 values times scales[r] approximate its float values. */
  #scales: Float32Array;
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
    this.#kernel = createInt8Kernel(options.kernel ?? 'auto');
    this.#capacity = Math.max(1, Math.floor(capacity));
    this.#data = new Float32Array(dimension * this.#capacity);
    this.#scales = new Float32Array(this.#capacity);
    this.#kernel.ensure(this.#kernelBytes(this.#capacity));
  }

  /** Number of vectors held. */
  get size(): number {
    return this.#ids.length;
  }

  /** Which int8 kernel scans: `wasm-simd` or `js`. */
  get kernel(): 'wasm-simd' | 'js' {
    return this.#kernel.kind;
  }

  /** Bytes held in typed arrays (float rows, int8 rows, scales, scratch), not counting ids. */
  get byteLength(): number {
    return this.#data.byteLength + this.#scales.byteLength + this.#kernel.buffer.byteLength;
  }

  /** True when `id` has a vector. */
  has(id: string): boolean {
    return this.#slots.has(id);
  }

  /** Adds or replaces the vector of `id`. */
  set(id: string, vector: Float32Array): void {
    if (vector.length !== this.dimension) throw new RangeError(`vector has ${vector.length} dimensions, the index ${this.dimension}`);
    let slot = this.#slots.get(id);
    if (slot === undefined) {
      slot = this.#ids.length;
      if (slot === this.#capacity) this.#grow(this.#capacity * 2);
      this.#ids.push(id);
      this.#slots.set(id, slot);
    }
    this.#data.set(vector, slot * this.dimension);
    const scale = quantize(vector, new Int8Array(this.#kernel.buffer, slot * this.#stride, this.dimension));
    this.#scales[slot] = scale;
    if (scale > this.#maxScale) this.#maxScale = scale;
  }

  /** Removes the vector of `id` if there is one. */
  remove(id: string): void {
    const slot = this.#slots.get(id);
    if (slot === undefined) return;
    const last = this.#ids.length - 1;
    const dim = this.dimension;
    const stride = this.#stride;
    const rows = new Int8Array(this.#kernel.buffer);
    if (slot !== last) {
      const lastId = this.#ids[last]!;
      this.#data.copyWithin(slot * dim, last * dim, (last + 1) * dim);
      rows.copyWithin(slot * stride, last * stride, (last + 1) * stride);
      this.#scales[slot] = this.#scales[last]!;
      this.#ids[slot] = lastId;
      this.#slots.set(lastId, slot);
    }
    this.#data.fill(0, last * dim, (last + 1) * dim);
    rows.fill(0, last * stride, (last + 1) * stride);
    this.#scales[last] = 0;
    this.#ids.pop();
    this.#slots.delete(id);
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
    const dim = this.dimension;
    const data = this.#data;
    const looked = Math.min(n, BACKGROUND_ROWS);
    const spans: Array<{ row: number; first: number; last: number }> = [];
    for (let i = 0; i < looked; i++) {
      const row = Math.floor((i * n) / looked);
      const base = row * dim;
      let first = 0;
      while (first < dim && data[base + first] === 0) first++;
      if (first === dim) continue; // a zero row belongs nowhere
      let last = dim - 1;
      while (data[base + last] === 0) last--;
      spans.push({ row, first, last });
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
    const dim = this.dimension;
    const data = this.#data;
    let sum = 0;
    let sumSq = 0;
    let pairs = 0;
    const add = (i: number, j: number) => {
      const c = dot(data, rows[i]! * dim, data.subarray(rows[j]! * dim, (rows[j]! + 1) * dim), 0, dim);
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
    return dot(this.#data, slot * this.dimension, query, 0, this.dimension);
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
    const dim = this.dimension;
    const data = this.#data;
    const top = new TopK(k);
    for (const row of coarse.rows) top.push(row, dot(data, row * dim, query, span.start, span.floatEnd));
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
    const dim = this.dimension;
    const data = this.#data;
    const raw = new Int32Array(this.#kernel.buffer, this.#outOffset(), n);
    const scales = this.#scales;
    const seen = new Uint8Array(n);
    for (const row of coarse.rows) seen[row] = 1;
    let count = 0;
    let threshold = (top.floor - margin) / coarse.queryScale;
    for (let row = 0; row < n; row++) {
      if (raw[row]! * scales[row]! > threshold && seen[row] === 0 && (!accept || accept(this.#ids[row]!))) {
        top.push(row, dot(data, row * dim, query, span.start, span.floatEnd));
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
    const dim = this.dimension;
    const data = this.#data;
    const n = this.#ids.length;
    const { start, floatEnd } = querySpan(query, this.#stride);
    const top = new TopK(k);
    let floor = top.floor;
    for (let row = 0, base = 0; row < n; row++, base += dim) {
      const score = dot(data, base, query, start, floatEnd);
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
    const stride = this.#stride;
    const qOffset = this.#capacity * stride;
    const outOffset = this.#outOffset();
    const buffer = this.#kernel.buffer;
    const queryScale = quantize(query, new Int8Array(buffer, qOffset, stride));
    if (queryScale === 0) return null;
    // Only the columns where the query is not zero can add to a score (an embedder of
    // side-by-side model spaces leaves the others zero): the scan reads just those.
    this.#kernel.dot(span.start, n, stride, span.int8End - span.start, qOffset + span.start, outOffset);
    const raw = new Int32Array(buffer, outOffset, n);
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

  /** Where the kernel writes one Int32 score per row (after the rows and the query). */
  #outOffset(): number {
    return this.#capacity * this.#stride + this.#stride;
  }

  #hits(top: TopK): VectorHit[] {
    return top.sorted().map(({ item, score }) => ({ id: this.#ids[item]!, score }));
  }

  /**
   * Copies of the packed rows, for persisting an index (e.g. one IndexedDB value per
   * namespace) and restoring it with {@link VectorIndex.fromPacked} instead of calling
   * `set` per vector. Row i belongs to `ids[i]`.
   */
  exportPacked(): PackedVectors {
    const n = this.#ids.length;
    return {
      dimension: this.dimension,
      ids: [...this.#ids],
      floats: this.#data.slice(0, n * this.dimension),
      int8: new Int8Array(this.#kernel.buffer, 0, n * this.#stride).slice(),
      scales: this.#scales.slice(0, n),
    };
  }

  /**
   * An index holding exactly the packed rows (from {@link exportPacked}); `int8` and
   * `scales` may be left out, they are then computed from the floats. With `adopt`, the
   * index takes `floats` over instead of copying it (100k × 384: 150 MB not allocated
   * twice); the caller must not use that array afterwards.
   * @throws RangeError when the arrays do not fit together, or an id repeats
   */
  static fromPacked(
    packed: Omit<PackedVectors, 'int8' | 'scales'> & Partial<Pick<PackedVectors, 'int8' | 'scales'>>,
    options: VectorIndexOptions = {},
    { adopt = false }: { adopt?: boolean } = {},
  ): VectorIndex {
    const { dimension, ids, floats } = packed;
    const n = ids.length;
    if (floats.length !== n * dimension) throw new RangeError(`floats hold ${floats.length} values, ${n} ids × ${dimension} dimensions need ${n * dimension}`);
    const index = new VectorIndex(dimension, adopt ? 1 : Math.max(n, 1), options);
    if (adopt && n > 0) {
      index.#data = floats;
      index.#scales = new Float32Array(n);
      index.#kernel.ensure(index.#kernelBytes(n));
      index.#capacity = n;
    }
    const stride = index.#stride;
    const withInt8 = packed.int8 !== undefined && packed.scales !== undefined;
    if (withInt8 && (packed.int8!.length !== n * stride || packed.scales!.length !== n)) {
      throw new RangeError(`int8 rows (${packed.int8!.length}) or scales (${packed.scales!.length}) do not fit ${n} rows of ${stride}`);
    }
    if (index.#data !== floats) index.#data.set(floats);
    for (let slot = 0; slot < n; slot++) {
      const id = ids[slot]!;
      if (index.#slots.has(id)) throw new RangeError(`id ${id} appears twice`);
      index.#slots.set(id, slot);
    }
    index.#ids = [...ids];
    if (withInt8) {
      new Int8Array(index.#kernel.buffer, 0, n * stride).set(packed.int8!);
      index.#scales.set(packed.scales!);
    } else {
      for (let slot = 0; slot < n; slot++) {
        index.#scales[slot] = quantize(floats.subarray(slot * dimension, (slot + 1) * dimension), new Int8Array(index.#kernel.buffer, slot * stride, dimension));
      }
    }
    let max = 0;
    for (let slot = 0; slot < n; slot++) max = Math.max(max, index.#scales[slot]!);
    index.#maxScale = max;
    return index;
  }

  /** Kernel memory: int8 rows, then the query's row, then one Int32 score per row. */
  #kernelBytes(capacity: number): number {
    return capacity * this.#stride + this.#stride + capacity * 4;
  }

  #grow(capacity: number): void {
    const data = new Float32Array(capacity * this.dimension);
    data.set(this.#data);
    this.#data = data;
    const scales = new Float32Array(capacity);
    scales.set(this.#scales);
    this.#scales = scales;
    // The int8 rows start at 0 and keep their place; the scratch after them moves on.
    this.#kernel.ensure(this.#kernelBytes(capacity));
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
  let first = -1;
  let last = -1;
  for (let j = 0; j < query.length; j++) {
    if (query[j] !== 0) {
      if (first < 0) first = j;
      last = j;
    }
  }
  if (first < 0) return { start: 0, int8End: stride, floatEnd: query.length };
  const start = first & ~15;
  const int8End = Math.min(stride, (last + 16) & ~15);
  return { start, int8End, floatEnd: Math.min(query.length, int8End) };
}

/**
 * Dot product of `data` from `base` with `query` over the columns `[start, end)`. Search
 * and similarity share it: equal scores (`start` a multiple of 4 keeps every product in
 * the accumulator it has in a scan from column 0, and the columns left out are zero).
 */
function dot(data: Float32Array, base: number, query: Float32Array, start: number, end: number): number {
  // Four accumulators: independent chains let the CPU overlap the multiply-adds.
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const tail = start + ((end - start) & ~3);
  let j = start;
  for (; j < tail; j += 4) {
    s0 += data[base + j]! * query[j]!;
    s1 += data[base + j + 1]! * query[j + 1]!;
    s2 += data[base + j + 2]! * query[j + 2]!;
    s3 += data[base + j + 3]! * query[j + 3]!;
  }
  for (; j < end; j++) s0 += data[base + j]! * query[j]!;
  return s0 + s1 + s2 + s3;
}
