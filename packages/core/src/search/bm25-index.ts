import { TopK } from './top-k.ts';
import { tokenize } from './tokenize.ts';

/** A scored lexical match. */
export interface TextHit {
  id: string;
  score: number;
}

/**
 * A {@link Bm25Index} as plain arrays, for persisting (see {@link Bm25Index.exportState}).
 * Term t's postings are `docs`/`tfs` from `termStart[t]` to `termStart[t + 1]`; slot s's
 * distinct terms are `slotTerms` from `slotTermStart[s]` to `slotTermStart[s + 1]`.
 */
export interface Bm25State {
  /** JSON array of the terms, in term id order. */
  terms: string;
  termStart: Int32Array;
  docs: Int32Array;
  tfs: Uint16Array;
  /** The memory ids, in slot order. */
  slotIds: string[];
  slotLength: Int32Array;
  slotTermStart: Int32Array;
  slotTerms: Int32Array;
}

/** The terms of a removed slot. */
const NO_TERMS = new Int32Array(0);

/** BM25 parameters: k1 saturates term frequency, b normalizes for document length. */
export interface Bm25Params {
  k1: number;
  b: number;
}

/**
 * Okapi BM25 over one namespace's memories: an inverted index of packed postings
 * (document slot + term frequency per term), document frequencies counted per document,
 * whole-word matching. b = 1 by default: long assistant turns would otherwise crowd out
 * the short user turns that hold the facts (LongMemEval R@10 0.752 -> 0.795 when measured).
 * Removed documents leave tombstones that a rebuild of the postings clears once they
 * are a quarter of all slots.
 */
export class Bm25Index {
  readonly #params: Bm25Params;
  readonly #termIds = new Map<string, number>();
  /** Term id -> word; `undefined` once no live document has it (a forgotten word leaves the index). */
  #terms: Array<string | undefined> = [];
  /** Term t's postings; a hole for a term whose postings are still where {@link fromState} found them (see {@link #docsOf}). */
  #postDocs: Array<Int32Array | undefined> = [];
  #postTfs: Array<Uint16Array | undefined> = [];
  #postLen: number[] = [];
  #df: number[] = [];
  #slotIds: Array<string | undefined> = [];
  /** Tokens per slot (a typed array: the search reads it once per posting). Valid below `#slotIds.length`. */
  #slotLength = new Int32Array(64);
  /** Slot s's distinct terms; a hole for a restored slot whose terms are still in {@link #restored} (see {@link #termsOf}). */
  #slotTerms: Array<Int32Array | undefined> = [];
  /**
   * The arrays a restore came from ({@link Bm25State}), read where they are: a view per
   * term and per slot made up front was 100k small objects at 100k memories (time, heap
   * and GC at every open) for the few a search or a removal ever touches.
   */
  #restored: Pick<Bm25State, 'termStart' | 'docs' | 'tfs' | 'slotTermStart' | 'slotTerms'> | undefined;
  readonly #slots = new Map<string, number>();
  #totalLength = 0;
  #dead = 0;
  /** Per-slot score accumulator reused by every search (zeroed where touched): a fresh 800 KB array per query at 100k slowed the vector scan that follows. */
  #scores = new Float64Array(0);
  /** The slots a search has scored, as many as `#scores` has room for (reused likewise). */
  #touched = new Int32Array(0);

  constructor(params: Bm25Params = { k1: 1.2, b: 1 }) {
    this.#params = params;
  }

  /** Number of indexed memories. */
  get size(): number {
    return this.#slots.size;
  }

  /** True when memory `id` is indexed. */
  has(id: string): boolean {
    return this.#slots.has(id);
  }

  /** The words in the index (of live documents only). */
  words(): IterableIterator<string> {
    return this.#termIds.keys();
  }

  /** Adds memories (an id already in the index is replaced). */
  addMany(docs: Array<{ id: string; content: string }>): void {
    for (const doc of docs) this.#add(doc.id, tokenize(doc.content));
  }

  /** Removes a memory if it is there. */
  remove(id: string): void {
    const slot = this.#slots.get(id);
    if (slot === undefined) return;
    this.#slots.delete(id);
    for (const term of this.#termsOf(slot)) {
      if (--this.#df[term]! > 0) continue;
      this.#termIds.delete(this.#terms[term]!);
      this.#terms[term] = undefined;
      this.#postDocs[term] = new Int32Array(4);
      this.#postTfs[term] = new Uint16Array(4);
      this.#postLen[term] = 0;
    }
    this.#totalLength -= this.#slotLength[slot]!;
    this.#slotIds[slot] = undefined;
    this.#slotTerms[slot] = NO_TERMS;
    this.#dead++;
    if (this.#dead > 64 && this.#dead * 4 > this.#slotIds.length) this.#compact();
  }

  /** The `limit` best BM25 matches, best first (ties by id). A repeated query word counts again. */
  search(query: string, limit: number): TextHit[] {
    const live = this.#slots.size;
    if (live === 0 || limit < 1) return [];
    const queryCounts = this.#queryTerms(query);
    if (queryCounts.size === 0) return [];
    const { k1, b } = this.#params;
    const avgLength = this.#totalLength / live || 1;
    if (this.#scores.length < this.#slotIds.length) this.#scores = new Float64Array(Math.max(64, this.#slotIds.length * 2));
    const scores = this.#scores;
    if (this.#touched.length < this.#slotIds.length) this.#touched = new Int32Array(this.#scores.length);
    const touched = this.#touched;
    let touchedCount = 0;
    const slotIds = this.#slotIds;
    const slotLength = this.#slotLength;
    const k1Plus1 = k1 + 1;
    const hasDead = this.#dead > 0;
    for (const [term, count] of queryCounts) {
      const df = this.#df[term]!;
      const idf = Math.log(1 + (live - df + 0.5) / (df + 0.5));
      const weight = count * idf;
      const docs = this.#docsOf(term);
      const tfs = this.#tfsOf(term);
      const n = this.#postLen[term]!;
      for (let i = 0; i < n; i++) {
        const slot = docs[i]!;
        if (hasDead && slotIds[slot] === undefined) continue; // removed
        const tf = tfs[i]!;
        const norm = k1 * (1 - b + (b * slotLength[slot]!) / avgLength);
        if (scores[slot] === 0) touched[touchedCount++] = slot;
        scores[slot]! += (weight * tf * k1Plus1) / (tf + norm);
      }
    }
    const top = new TopK(Math.min(limit, touchedCount));
    for (let i = 0; i < touchedCount; i++) {
      const slot = touched[i]!;
      top.push(slot, scores[slot]!);
      scores[slot] = 0;
    }
    const hits: TextHit[] = [];
    for (const { item, score } of top.entries()) hits.push({ id: slotIds[item]!, score });
    return hits.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  }

  /**
   * The BM25 scores of these memories for `query` (as {@link search} would give them),
   * for the ones that match at all: a look-up per query word in the postings instead of
   * a search, for a few hundred ids.
   */
  scoreDocs(query: string, ids: Iterable<string>): Map<string, number> {
    const scores = new Map<string, number>();
    const live = this.#slots.size;
    if (live === 0) return scores;
    const queryCounts = this.#queryTerms(query);
    if (queryCounts.size === 0) return scores;
    const { k1, b } = this.#params;
    const avgLength = this.#totalLength / live || 1;
    const idfs = new Map<number, number>();
    for (const term of queryCounts.keys()) {
      const df = this.#df[term]!;
      idfs.set(term, Math.log(1 + (live - df + 0.5) / (df + 0.5)));
    }
    for (const id of ids) {
      const slot = this.#slots.get(id);
      if (slot === undefined || scores.has(id)) continue;
      const norm = k1 * (1 - b + (b * this.#slotLength[slot]!) / avgLength);
      let score = 0;
      for (const [term, count] of queryCounts) {
        const tf = this.#tf(term, slot);
        if (tf > 0) score += (count * idfs.get(term)! * tf * (k1 + 1)) / (tf + norm);
      }
      if (score > 0) scores.set(id, score);
    }
    return scores;
  }

  /**
   * How much of the query's lexical weight each of these memories holds: every query
   * token weighs `count × idf` (a word no live memory holds weighs the most, the idf of
   * document frequency 0, so a query about things this namespace never mentions cannot
   * be covered), `possible` is their sum and `matched` the sum over the tokens a memory
   * contains. Absolute evidence, unlike a BM25 score divided by the best candidate's:
   * only memories that match at least one token are in `matched`.
   *
   * `except`: memories the answer cannot hold (a keyed fact's versions that do not hold at
   * the time asked): left out of the idf too, so ten past versions of a fact do not make
   * its words look common. `ignore`: tokens that are no evidence either way (they weigh 0).
   */
  coverage(
    query: string,
    ids: Iterable<string>,
    { except = [], ignore }: { except?: Iterable<string>; ignore?: ReadonlySet<string> } = {},
  ): { possible: number; matched: Map<string, number> } {
    const matched = new Map<string, number>();
    const outside: number[] = [];
    for (const id of except) {
      const slot = this.#slots.get(id);
      if (slot !== undefined) outside.push(slot);
    }
    const live = this.#slots.size - outside.length;
    const weights = new Map<number, number>();
    let possible = 0;
    const absent = Math.log(1 + (live + 0.5) / 0.5);
    for (const token of tokenize(query)) {
      if (ignore?.has(token)) continue;
      const term = this.#termIds.get(token);
      const df = term === undefined ? 0 : this.#df[term]! - this.#heldBy(term, outside);
      if (df === 0 || term === undefined) {
        possible += absent;
        continue;
      }
      const idf = Math.log(1 + (live - df + 0.5) / (df + 0.5));
      possible += idf;
      weights.set(term, (weights.get(term) ?? 0) + idf);
    }
    if (!weights.size) return { possible, matched };
    for (const id of ids) {
      const slot = this.#slots.get(id);
      if (slot === undefined || matched.has(id)) continue;
      let sum = 0;
      for (const [term, weight] of weights) if (this.#tf(term, slot) > 0) sum += weight;
      if (sum > 0) matched.set(id, sum);
    }
    return { possible, matched };
  }

  /** How many of these slots hold the term: a look-up per slot, or a walk of the postings when they are fewer. */
  #heldBy(term: number, slots: readonly number[]): number {
    if (!slots.length) return 0;
    let held = 0;
    const n = this.#postLen[term]!;
    if (n < slots.length) {
      const docs = this.#docsOf(term);
      const among = new Set(slots);
      for (let i = 0; i < n; i++) if (among.has(docs[i]!)) held++;
    } else {
      for (const slot of slots) if (this.#tf(term, slot) > 0) held++;
    }
    return held;
  }

  /** Query word -> how often the query says it, for the words the index has. */
  #queryTerms(query: string): Map<number, number> {
    const counts = new Map<number, number>();
    for (const token of tokenize(query)) {
      const term = this.#termIds.get(token);
      if (term !== undefined && this.#df[term]! > 0) counts.set(term, (counts.get(term) ?? 0) + 1);
    }
    return counts;
  }

  /** A term's frequency in a slot: postings are in slot order (appended, compacted and exported in order), so a binary search. */
  #tf(term: number, slot: number): number {
    const docs = this.#docsOf(term);
    let lo = 0;
    let hi = this.#postLen[term]! - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = docs[mid]!;
      if (at === slot) return this.#tfsOf(term)[mid]!;
      if (at < slot) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  }

  /** Term `term`'s posted slots (its first `#postLen[term]` values count). */
  #docsOf(term: number): Int32Array {
    const own = this.#postDocs[term];
    if (own) return own;
    const { termStart, docs } = this.#restored!;
    return docs.subarray(termStart[term]!, termStart[term + 1]!);
  }

  /** Term `term`'s frequencies, beside {@link #docsOf}. */
  #tfsOf(term: number): Uint16Array {
    const own = this.#postTfs[term];
    if (own) return own;
    const { termStart, tfs } = this.#restored!;
    return tfs.subarray(termStart[term]!, termStart[term + 1]!);
  }

  /** Slot `slot`'s distinct terms (a live slot's). */
  #termsOf(slot: number): Int32Array {
    const own = this.#slotTerms[slot];
    if (own) return own;
    const { slotTermStart, slotTerms } = this.#restored!;
    return slotTerms.subarray(slotTermStart[slot]!, slotTermStart[slot + 1]!);
  }

  /**
   * The index as plain arrays, for persisting; {@link Bm25Index.fromState} restores it.
   * Tombstones are cleared first and terms no live memory holds are left out: a forgotten
   * memory's words must not outlive it in a stored snapshot.
   */
  exportState(): Bm25State {
    if (this.#dead > 0) this.#compact();
    const renumber = new Int32Array(this.#postDocs.length).fill(-1);
    const terms: string[] = [];
    for (const [term, id] of this.#termIds) {
      if (this.#postLen[id]! === 0) continue;
      renumber[id] = terms.length;
      terms.push(term);
    }
    const termStart = new Int32Array(terms.length + 1);
    const docs = new Int32Array(this.#postLen.reduce((sum, n) => sum + n, 0));
    const tfs = new Uint16Array(docs.length);
    for (let id = 0; id < this.#postDocs.length; id++) {
      const term = renumber[id]!;
      if (term < 0) continue;
      const n = this.#postLen[id]!;
      termStart[term + 1] = termStart[term]! + n;
      docs.set(this.#docsOf(id).subarray(0, n), termStart[term]!);
      tfs.set(this.#tfsOf(id).subarray(0, n), termStart[term]!);
    }
    const slots = this.#slotIds.length;
    const slotTermStart = new Int32Array(slots + 1);
    for (let slot = 0; slot < slots; slot++) slotTermStart[slot + 1] = slotTermStart[slot]! + this.#termsOf(slot).length;
    const slotTerms = new Int32Array(slotTermStart[slots]!);
    for (let slot = 0; slot < slots; slot++) {
      const own = this.#termsOf(slot);
      const at = slotTermStart[slot]!;
      for (let i = 0; i < own.length; i++) slotTerms[at + i] = renumber[own[i]!]!;
    }
    return {
      terms: JSON.stringify(terms),
      termStart,
      docs,
      tfs,
      slotIds: this.#slotIds.slice() as string[], // compacted: no removed slot is left
      slotLength: this.#slotLength.slice(0, slots),
      slotTermStart,
      slotTerms,
    };
  }

  /**
   * The index an {@link Bm25Index.exportState} described, without tokenizing anything. It
   * takes `state`'s arrays over (the caller must not change them afterwards).
   * @throws RangeError when the arrays do not fit together
   */
  static fromState(state: Bm25State, params?: Bm25Params): Bm25Index {
    const index = new Bm25Index(params);
    const terms = JSON.parse(state.terms) as string[];
    const slotIds: Array<string | undefined> = state.slotIds;
    const termCount = terms.length;
    const slots = slotIds.length;
    if (
      state.termStart.length !== termCount + 1 ||
      state.termStart[termCount] !== state.docs.length ||
      state.tfs.length !== state.docs.length ||
      state.slotLength.length !== slots ||
      state.slotTermStart.length !== slots + 1 ||
      state.slotTermStart[slots] !== state.slotTerms.length
    ) {
      throw new RangeError('BM25 state arrays do not fit together');
    }
    for (let term = 0; term < termCount; term++) index.#termIds.set(terms[term]!, term);
    index.#terms = terms;
    // Postings and slot terms stay in the restored arrays (#docsOf, #termsOf); an append
    // past a term's end copies its postings out first (see #append).
    index.#restored = state;
    index.#postDocs = new Array(termCount);
    index.#postTfs = new Array(termCount);
    index.#slotTerms = new Array(slots);
    const lengths = new Array<number>(termCount);
    for (let term = 0; term < termCount; term++) lengths[term] = state.termStart[term + 1]! - state.termStart[term]!;
    index.#postLen = lengths;
    index.#df = lengths.slice(); // exported without tombstones: every posting is live
    index.#slotLength = Int32Array.from(state.slotLength);
    index.#slotIds = slotIds;
    let total = 0;
    for (let slot = 0; slot < slots; slot++) {
      index.#slots.set(slotIds[slot]!, slot);
      total += state.slotLength[slot]!;
    }
    index.#totalLength = total;
    if (index.#slots.size !== slots) throw new RangeError('BM25 state repeats a memory id');
    return index;
  }

  #add(id: string, tokens: string[]): void {
    if (this.#slots.has(id)) this.remove(id);
    const counts = new Map<number, number>();
    for (const token of tokens) {
      let term = this.#termIds.get(token);
      if (term === undefined) {
        term = this.#terms.length; // ids of words that left are not reused
        this.#terms.push(token);
        this.#termIds.set(token, term);
        this.#postDocs.push(new Int32Array(4));
        this.#postTfs.push(new Uint16Array(4));
        this.#postLen.push(0);
        this.#df.push(0);
      }
      counts.set(term, (counts.get(term) ?? 0) + 1);
    }
    const slot = this.#slotIds.length;
    this.#slotIds.push(id);
    if (slot === this.#slotLength.length) {
      const lengths = new Int32Array(Math.max(64, slot * 2));
      lengths.set(this.#slotLength);
      this.#slotLength = lengths;
    }
    this.#slotLength[slot] = tokens.length;
    this.#slotTerms.push(Int32Array.from(counts.keys()));
    this.#slots.set(id, slot);
    this.#totalLength += tokens.length;
    for (const [term, count] of counts) {
      this.#append(term, slot, Math.min(count, 65_535));
      this.#df[term]!++;
    }
  }

  #append(term: number, slot: number, tf: number): void {
    const n = this.#postLen[term]!;
    if (n === this.#docsOf(term).length) {
      const docs = new Int32Array(Math.max(4, n * 2));
      docs.set(this.#docsOf(term));
      const tfs = new Uint16Array(docs.length);
      tfs.set(this.#tfsOf(term));
      this.#postDocs[term] = docs;
      this.#postTfs[term] = tfs;
    }
    this.#postDocs[term]![n] = slot;
    this.#postTfs[term]![n] = tf;
    this.#postLen[term] = n + 1;
  }

  /** Renumbers live documents densely and drops their tombstoned postings. */
  #compact(): void {
    const remap = new Int32Array(this.#slotIds.length).fill(-1);
    const ids: Array<string | undefined> = [];
    const lengths = new Int32Array(Math.max(64, this.#slots.size));
    const terms: Array<Int32Array | undefined> = [];
    this.#slotIds.forEach((id, slot) => {
      if (id === undefined) return;
      remap[slot] = ids.length;
      this.#slots.set(id, ids.length);
      ids.push(id);
      lengths[ids.length - 1] = this.#slotLength[slot]!;
      terms.push(this.#slotTerms[slot]);
    });
    if (this.#restored) {
      // Restored slots keep their terms in #restored under their old slot numbers: copied out now.
      let at = 0;
      this.#slotIds.forEach((id, slot) => {
        if (id !== undefined) terms[at++] ??= this.#termsOf(slot);
      });
    }
    for (let term = 0; term < this.#postLen.length; term++) {
      const docs = this.#docsOf(term);
      const tfs = this.#tfsOf(term);
      let kept = 0;
      for (let i = 0; i < this.#postLen[term]!; i++) {
        const slot = remap[docs[i]!]!;
        if (slot < 0) continue;
        docs[kept] = slot;
        tfs[kept] = tfs[i]!;
        kept++;
      }
      this.#postLen[term] = kept;
    }
    this.#slotIds = ids;
    this.#slotLength = lengths;
    this.#slotTerms = terms;
    this.#dead = 0;
    if (this.#restored) {
      // Compacted in place; every posting list is its own from here on.
      for (let term = 0; term < this.#postLen.length; term++) {
        this.#postDocs[term] = this.#docsOf(term);
        this.#postTfs[term] = this.#tfsOf(term);
      }
      this.#restored = undefined;
    }
  }
}
