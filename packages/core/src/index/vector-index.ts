import { TopK } from './top-k.ts';

/** A scored vector match: cosine similarity of unit vectors. */
export interface VectorHit {
  id: string;
  score: number;
}

/**
 * One namespace's vectors packed in one Float32Array (row i = slot i), scanned with a
 * tight dot-product loop and a bounded heap. Removal moves the last row into the hole, so
 * the array stays dense. Vectors must be unit length (the embedder guarantees it).
 */
export class VectorIndex {
  readonly dimension: number;
  #data: Float32Array;
  #ids: string[] = [];
  readonly #slots = new Map<string, number>();

  constructor(dimension: number, capacity = 64) {
    this.dimension = dimension;
    this.#data = new Float32Array(dimension * Math.max(1, capacity));
  }

  /** Number of vectors held. */
  get size(): number {
    return this.#ids.length;
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
      if ((slot + 1) * this.dimension > this.#data.length) {
        const grown = new Float32Array(this.#data.length * 2);
        grown.set(this.#data);
        this.#data = grown;
      }
      this.#ids.push(id);
      this.#slots.set(id, slot);
    }
    this.#data.set(vector, slot * this.dimension);
  }

  /** Removes the vector of `id` if there is one. */
  remove(id: string): void {
    const slot = this.#slots.get(id);
    if (slot === undefined) return;
    const last = this.#ids.length - 1;
    if (slot !== last) {
      const lastId = this.#ids[last]!;
      this.#data.copyWithin(slot * this.dimension, last * this.dimension, (last + 1) * this.dimension);
      this.#ids[slot] = lastId;
      this.#slots.set(lastId, slot);
    }
    this.#data.fill(0, last * this.dimension, (last + 1) * this.dimension);
    this.#ids.pop();
    this.#slots.delete(id);
  }

  /** Cosine similarity of `id`'s vector to `query`, or undefined when `id` has none. */
  similarity(id: string, query: Float32Array): number | undefined {
    const slot = this.#slots.get(id);
    if (slot === undefined) return undefined;
    let sum = 0;
    for (let j = 0, base = slot * this.dimension; j < this.dimension; j++) sum += this.#data[base + j]! * query[j]!;
    return sum;
  }

  /** The k most similar vectors to `query` (a unit vector), best first. */
  search(query: Float32Array, k: number, accept?: (id: string) => boolean): VectorHit[] {
    const dim = this.dimension;
    const data = this.#data;
    const n = this.#ids.length;
    const top = new TopK(Math.min(k, n));
    const tail = dim & ~3;
    for (let row = 0, base = 0; row < n; row++, base += dim) {
      // Four accumulators: independent chains let the CPU overlap the multiply-adds.
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let j = 0;
      for (; j < tail; j += 4) {
        s0 += data[base + j]! * query[j]!;
        s1 += data[base + j + 1]! * query[j + 1]!;
        s2 += data[base + j + 2]! * query[j + 2]!;
        s3 += data[base + j + 3]! * query[j + 3]!;
      }
      for (; j < dim; j++) s0 += data[base + j]! * query[j]!;
      const score = s0 + s1 + s2 + s3;
      if (score > top.floor && (!accept || accept(this.#ids[row]!))) top.push(row, score);
    }
    return top.sorted().map(({ item, score }) => ({ id: this.#ids[item]!, score }));
  }
}
