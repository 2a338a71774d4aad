/**
 * Keeps the k best items seen, in a min-heap: O(n log k) for a scan of n items, and a
 * threshold (`floor`) the scan can test before doing any work.
 *
 * "Best" is one total order: the higher score, and of equal scores the lower item. So what
 * is kept does not depend on the order items are offered in (a search that offers its
 * candidates first and the rows near the cut after keeps what a scan in row order keeps).
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

  /**
   * The worst kept score (−Infinity until full): an item scoring below it cannot get in,
   * one scoring the same only if it is a lower item than the worst kept. A scan in item
   * order can therefore skip every score that is not above it.
   */
  get floor(): number {
    return this.#size < this.#k ? Number.NEGATIVE_INFINITY : this.#scores[0]!;
  }

  /** Offers an item; kept if it is among the k best so far. */
  push(item: number, score: number): void {
    if (this.#k === 0) return;
    const scores = this.#scores;
    const items = this.#items;
    if (this.#size < this.#k) {
      // Sift up: the worst at the root.
      let i = this.#size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!worse(score, item, scores[parent]!, items[parent]!)) break;
        scores[i] = scores[parent]!;
        items[i] = items[parent]!;
        i = parent;
      }
      scores[i] = score;
      items[i] = item;
      return;
    }
    if (!worse(scores[0]!, items[0]!, score, item)) return;
    // Replace the worst and sift down.
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.#size) break;
      const right = left + 1;
      const child = right < this.#size && worse(scores[right]!, items[right]!, scores[left]!, items[left]!) ? right : left;
      if (!worse(scores[child]!, items[child]!, score, item)) break;
      scores[i] = scores[child]!;
      items[i] = items[child]!;
      i = child;
    }
    scores[i] = score;
    items[i] = item;
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

/** Whether item a (score, item) ranks below item b: a lower score, or the same score and a higher item. */
function worse(scoreA: number, itemA: number, scoreB: number, itemB: number): boolean {
  return scoreA < scoreB || (scoreA === scoreB && itemA > itemB);
}
