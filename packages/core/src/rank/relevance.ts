import type { CosineBackground } from '../search/vector-index.ts';
import type { LexicalEvidence, SemanticEvidence, RelevanceEvidence } from '../public/relevance.ts';

/**
 * The relevance recall's thresholds use: 0..1, the same scale in every query, namespace
 * and store, built only from evidence each channel can vouch for on its own (ranking
 * keeps its relative score, see ranking.ts). Default floor of {@link DEFAULT_MIN_RELEVANCE}.
 *
 * - Lexical: the share of the query's word weight (idf in this namespace) a memory holds,
 *   against all of it (see `Bm25Index.coverage`). Only memories recall can return count
 *   (a keyed fact's versions that do not hold at the time asked are left out of the idf),
 *   and the words naming the subject every memory is about ("user", 用户) weigh nothing.
 *   A word the namespace never uses weighs the most, so a query about something this
 *   namespace never mentions stays low.
 * - Semantic: how far the cosine stands above this store's own cosines of unrelated pairs
 *   in the query's embedding space (`VectorIndex.background`), read as the chance that
 *   none of the namespace's N memories would reach it by luck, `Φ(z)^N`. No cosine scale
 *   is assumed, so a new model needs no new constant, and a bigger namespace needs a
 *   clearer margin (the best of 50,000 unrelated memories stands higher than the best of 7).
 * - Together: `1 − (1 − lexical × agreement)(1 − semantic)`, either channel alone can vouch.
 *   The agreement is what the meaning says of a word match: `Φ(z)`, the share of the
 *   namespace's unrelated pairs the memory's cosine stands above. A memory that shares a
 *   word with the query but is further from it in meaning than two unrelated memories of
 *   the namespace are from each other matched by coincidence ("Fed the cat today" for a
 *   question about a drill bought today): its word share counts in that proportion. Without
 *   the meaning to judge by, the words stand alone (agreement 1): no vector, a background
 *   too small to measure, a vector of another embedding space (cosine 0), or a conversation
 *   of two turns or more as the query (its vector mixes them: its cosines with single memories sit below
 *   memory pairs', not on their scale; MADial-en with all-MiniLM-L6-v2: mean 0.13 against 0.43).
 *   Measured: memdaily-zh-dev's foreign queries answered with nothing 2.2% -> 31.1% for 0.1
 *   point of R@10, the other dev sets unchanged (docs/benchmarks/2026-12-06-abstain.md).
 */

/**
 * Recall's default floor, applied to the answer: when no hit of the page reaches it, recall
 * answers `hits: []` with a `reason`; otherwise the page is kept whole, each hit with its
 * relevance (a `minRelevance` given applies to each hit instead; 0 turns the floor off).
 * 0.01 is "some evidence of its own": 1% of the query's word weight (as far as the meaning
 * agrees, see the module's comment), or a cosine the
 * namespace's unrelated memories of that embedding space reach by luck less than 99% of the
 * time. It is safe because the evidence is read where recall can answer from: the cosine
 * against the query's own embedding space (not another language's model, see
 * `VectorIndex.background`), word weight counted over the versions recall can return, and
 * words naming every memory's subject weigh nothing (subject-words.ts). Applied to each hit
 * it cost MADial-en 0.3 point of R@10 (docs/BENCHMARKS.md "Relevance"); to the answer, none.
 */
export const DEFAULT_MIN_RELEVANCE = 0.01;

/** Lexical evidence from matched and possible word weight; null when nothing matched. */
export function lexicalEvidence(matched: number, possible: number): LexicalEvidence | null {
  if (!(matched > 0) || !(possible > 0)) return null;
  return { matched, possible, share: Math.min(1, matched / possible) };
}

/**
 * Semantic evidence of a cosine against the background of the query's embedding space in
 * the namespace (its `vectors` are the N searched). A space too small to measure one (fewer
 * than 3 vectors) has nothing to stand above: there the cosine itself, 0 as the floor, is
 * the share (reported as mean 0, sd 1), so the first memories of a store, or of a language
 * in it, are found by meaning as before.
 */
export function semanticEvidence(cosine: number, background: CosineBackground): SemanticEvidence {
  const searched = background.vectors;
  if (!(background.sd > 0)) return { cosine, mean: 0, sd: 1, z: cosine, searched, share: Math.min(1, Math.max(0, cosine)), above: 1 };
  const z = (cosine - background.mean) / background.sd;
  // Φ(z)^N = exp(N·ln(1 − tail)); the tail from erfc keeps precision far out.
  const tail = 0.5 * erfc(z / Math.SQRT2);
  const share = tail >= 1 ? 0 : Math.exp(searched * Math.log1p(-tail));
  return { cosine, mean: background.mean, sd: background.sd, z, searched, share, above: 1 - tail };
}

/**
 * The two channels combined (either can vouch on its own), the word share weighed by what
 * the meaning says of it (see the module's comment). `conversation`: the query is a
 * conversation, whose cosines are not on the scale of memory pairs: the words stand alone.
 */
export function combineEvidence(lexical: LexicalEvidence | null, semantic: SemanticEvidence | null, conversation = false): RelevanceEvidence {
  // A cosine of exactly 0: the vectors share no coordinate (another embedding space), so no judgement.
  const agreement = semantic && !conversation && semantic.cosine !== 0 ? semantic.above : 1;
  const relevance = 1 - (1 - (lexical?.share ?? 0) * agreement) * (1 - (semantic?.share ?? 0));
  return { lexical, semantic, agreement, relevance };
}

/** Complementary error function (Numerical Recipes' erfcc: relative error below 1.2e-7 everywhere). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}
