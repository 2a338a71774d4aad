// The evidence recall answers by: lexical and semantic, and their combination.

/** What the words say (see {@link RelevanceEvidence}). */
export interface LexicalEvidence {
  /** Weight of the query's words this memory holds (own words, plus what a short conversation turn borrows from the turn next to it). */
  matched: number;
  /** Weight of all the query's words (`Σ idf`, a word absent from the namespace at the highest idf). */
  possible: number;
  /** `matched / possible`, at most 1. */
  share: number;
}

/** What the vectors say (see {@link RelevanceEvidence}). */
export interface SemanticEvidence {
  cosine: number;
  /** Mean and standard deviation of the cosines of unrelated pairs in this namespace, in the query's embedding space (mean 0, sd 1: too few to measure). */
  mean: number;
  sd: number;
  /** `(cosine − mean) / sd`. */
  z: number;
  /** Vectors of the namespace in the query's embedding space (the N of `Φ(z)^N`). */
  searched: number;
  /** `Φ(z)^N`: the chance that no unrelated memory of the namespace reaches this cosine. */
  share: number;
  /** `Φ(z)`: the share of the namespace's unrelated pairs this cosine stands above (1 when the background is too small to measure). */
  above: number;
}

/** A hit's absolute relevance and the evidence it is made of. */
export interface RelevanceEvidence {
  /** Null when the memory shares no word with the query. */
  lexical: LexicalEvidence | null;
  /** Null without vectors (no embedder, or not embedded yet). */
  semantic: SemanticEvidence | null;
  /**
   * How much the lexical share counts, 0..1: `semantic.above`, or 1 when the meaning cannot
   * judge the words (no semantic evidence, no background, cosine 0: another embedding
   * space, or a conversation as the query). See the module comment of rank/relevance.ts.
   */
  agreement: number;
  /** `1 − (1 − lexical.share × agreement)(1 − semantic.share)`, 0..1. */
  relevance: number;
}
