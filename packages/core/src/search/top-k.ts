/**
 * Keeps the k best (highest-scoring) items seen, in a min-heap: O(n log k) for a scan of
 * n items, and a threshold (`floor`) the scan can test before doing any work.
 */
export class TopK {
  readonly #k: number;
  readonly #scores: Float64Array;
  readonly #items: Int32Array;
  #size = 0;

  constructor(k: number) {
    this.#k = k;
    this.#scores = new Float64Array(k);
    this.#items = new Int32Array(k);
  }

  /** The score an item must beat to get in (−Infinity until full). */
  get floor(): number {
    return this.#size < this.#k ? Number.NEGATIVE_INFINITY : this.#scores[0]!;
  }

  /** Offers an item; kept if it is among the k best so far. */
  push(item: number, score: number): void {
    if (this.#k === 0) return;
    if (this.#size < this.#k) {
      let i = this.#size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (this.#scores[parent]! <= score) break;
        this.#scores[i] = this.#scores[parent]!;
        this.#items[i] = this.#items[parent]!;
        i = parent;
      }
      this.#scores[i] = score;
      this.#items[i] = item;
      return;
    }
    if (score <= this.#scores[0]!) return;
    // Replace the minimum and sift down.
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.#size) break;
      const right = left + 1;
      const child = right < this.#size && this.#scores[right]! < this.#scores[left]! ? right : left;
      if (this.#scores[child]! >= score) break;
      this.#scores[i] = this.#scores[child]!;
      this.#items[i] = this.#items[child]!;
      i = child;
    }
    this.#scores[i] = score;
    this.#items[i] = item;
  }

  /** Number of items kept (at most k). */
  get size(): number {
    return this.#size;
  }

  /** The kept items, in no particular order. */
  items(): Int32Array {
    return this.#items.slice(0, this.#size);
  }

  /** The kept items with their scores, in no particular order (for a caller that sorts by its own ties). */
  entries(): Array<{ item: number; score: number }> {
    const out: Array<{ item: number; score: number }> = [];
    for (let i = 0; i < this.#size; i++) out.push({ item: this.#items[i]!, score: this.#scores[i]! });
    return out;
  }

  /** The kept items, best first. */
  sorted(): Array<{ item: number; score: number }> {
    return this.entries().sort((a, b) => b.score - a.score || a.item - b.item);
  }
}
