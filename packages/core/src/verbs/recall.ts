import type { Embedder } from '../embed/embedder.ts';
import { toUnitVector } from '../embed/embedder.ts';
import { embedderFailure } from '../embed/embed-queue.ts';
import type { ZeromemError } from '../model/errors.ts';
import type { IndexManager } from '../index/index-manager.ts';
import type { NamespaceIndex } from '../index/namespace-index.ts';
import { requireNamespace } from '../model/namespace.ts';
import type { Layer, MemoryRecord, RecordFilter, TimeInput } from '../model/types.ts';
import type { RankingWeights } from '../rank/ranking.ts';
import { validateRecall } from '../model/validate-recall.ts';
import type { AccessTracker } from '../rank/access-tracker.ts';
import { rankFactors } from '../rank/ranking.ts';
import { matchesFilter } from '../store/match.ts';
import type { VerbContext } from './verb-context.ts';

/** What recall needs beyond the store. */
export interface RecallContext extends VerbContext {
  indexes: IndexManager;
  embedder: Embedder | undefined;
  access: AccessTracker;
}

/** Options of `recall(namespace, query, options)`. */
export interface RecallOptions {
  /** How many hits, 1..1000. Default 10. */
  k?: number;
  /** Only records that match (tags, metadata, times, source). */
  filters?: RecordFilter;
  /** Only records of these layers. */
  layers?: Layer[];
  /** The time recency and heat are measured from. Default: the clock. */
  now?: TimeInput;
  /** How text and vector relevance, importance, recency and heat weigh. */
  weights?: Partial<RankingWeights>;
  /** Count these hits as accesses (heat). Default true. A cold hit counted so re-warms. */
  trackAccess?: boolean;
  /** Recall cold-tier records too. Default false. */
  includeCold?: boolean;
}

/** Why a score came out as it did. `contributions.text + contributions.vector === score`. */
export interface RecallExplain {
  /** Raw BM25 score, or null when the record was not a lexical match. */
  bm25: number | null;
  /** Cosine similarity to the query, or null without vectors. */
  cosine: number | null;
  /** BM25 divided by the best BM25 among the candidates (0..1). */
  textScore: number;
  /** Cosine min-max normalized over the candidates (0..1). */
  vectorScore: number;
  /** `weights.text * textScore + weights.vector * vectorScore`. */
  relevance: number;
  importance: number;
  recency: number;
  heat: number;
  /** The score split by where it came from. */
  contributions: { text: number; vector: number };
}

/** One recalled memory. */
export interface RecallHit {
  id: string;
  score: number;
  record: MemoryRecord;
  explain: RecallExplain;
}

/** How the vector side took part in a recall. */
export type VectorMode = 'used' | 'no-embedder' | 'query-not-embeddable' | 'no-vectors-yet' | 'embedder-failed';

/** What `recall` returns. */
export interface RecallResult {
  hits: RecallHit[];
  /** `used` unless the recall was lexical only, and why. */
  vector: VectorMode;
  /** Memories of the whole database still waiting for their embedding (found lexically until then). */
  pendingEmbeddings: number;
  /** With `vector: 'embedder-failed'`: why (EMBEDDER_UNAVAILABLE). The hits are lexical only. */
  vectorError?: ZeromemError;
}

/** Candidates taken from each side before fusion: enough that ranking factors can reorder. */
function candidatePool(k: number): number {
  return Math.max(100, k * 5);
}

/**
 * Hybrid recall in one namespace: BM25 and vector candidates, fused, then ranked by
 * relevance x importance x recency x heat; filters and expiry applied before ranking.
 */
export async function recall(ctx: RecallContext, namespace: unknown, query: unknown, options: unknown, pending: () => number): Promise<RecallResult> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const clockNow = ctx.clock.now();
  const opts = validateRecall(query, options, ctx.limits, clockNow, ctx.embedder?.fusionWeight);
  const text = opts.lexicalQuery;
  const index = await ctx.indexes.ready(ns.key);
  // Expiry is judged by the real clock; `now` only moves recency and heat.
  const accept = (id: string) => {
    const record = index.records.get(id);
    return record !== undefined && (opts.includeCold || record.tier !== 'cold') && matchesFilter(record, opts.filter, clockNow);
  };
  const pool = candidatePool(opts.k);
  const textHits = text.trim() ? index.text.search(text, pool * 2).filter((hit) => accept(hit.id)).slice(0, pool) : [];

  let mode: VectorMode = 'no-embedder';
  let queryVector: Float32Array | null = null;
  let vectorError: ZeromemError | undefined;
  if (ctx.embedder && text.trim()) {
    try {
      queryVector = sumToUnit(await ctx.embedder.embed(opts.vectorQueries, 'query'), ctx.embedder.dimension);
      mode = !queryVector ? 'query-not-embeddable' : index.vectors?.size ? 'used' : 'no-vectors-yet';
    } catch (err) {
      // Words still find memories: answer lexically and say why.
      mode = 'embedder-failed';
      vectorError = embedderFailure(err);
    }
  }
  const cosine = new Map<string, number>();
  if (queryVector && index.vectors?.size) {
    for (const hit of index.vectors.search(queryVector, pool, accept)) cosine.set(hit.id, hit.score);
    for (const hit of textHits) {
      if (!cosine.has(hit.id)) {
        const score = index.vectors.similarity(hit.id, queryVector);
        if (score !== undefined) cosine.set(hit.id, score);
      }
    }
  }

  const hits = fuse(index, textHits, cosine, opts);
  if (opts.trackAccess && hits.length) {
    const ids = hits.map((hit) => hit.id);
    ctx.access.note(ns.key, ids, clockNow);
    index.noteAccess(ids, clockNow);
  }
  return { hits, vector: mode, pendingEmbeddings: pending(), ...(vectorError ? { vectorError } : {}) };
}

function fuse(
  index: NamespaceIndex,
  textHits: Array<{ id: string; score: number }>,
  cosine: Map<string, number>,
  opts: ReturnType<typeof validateRecall>,
): RecallHit[] {
  const bm25 = new Map(textHits.map((hit) => [hit.id, hit.score]));
  const maxBm25 = textHits.length ? Math.max(...textHits.map((hit) => hit.score)) : 0;
  let minCos = Number.POSITIVE_INFINITY;
  let maxCos = Number.NEGATIVE_INFINITY;
  for (const value of cosine.values()) {
    minCos = Math.min(minCos, value);
    maxCos = Math.max(maxCos, value);
  }
  const spread = maxCos - minCos;
  const { weights } = opts;
  const hits: RecallHit[] = [];
  for (const id of new Set([...bm25.keys(), ...cosine.keys()])) {
    const record = index.records.get(id)!;
    const rawText = bm25.get(id) ?? null;
    const rawCos = cosine.get(id) ?? null;
    const textScore = rawText !== null && maxBm25 > 0 ? rawText / maxBm25 : 0;
    const vectorScore = rawCos === null ? 0 : spread > 1e-9 ? (rawCos - minCos) / spread : 1;
    const relevance = weights.text * textScore + weights.vector * vectorScore;
    const factors = rankFactors(record, opts.now, weights);
    const multiplier = factors.importance * factors.recency * factors.heat;
    const contributions = { text: weights.text * textScore * multiplier, vector: weights.vector * vectorScore * multiplier };
    hits.push({
      id,
      score: contributions.text + contributions.vector,
      record,
      explain: { bm25: rawText, cosine: rawCos, textScore, vectorScore, relevance, ...factors, contributions },
    });
  }
  hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  return hits.slice(0, opts.k);
}

/** The unit-length sum of the embeddable vectors (null when none is). */
function sumToUnit(vectors: Array<Float32Array | null>, dimension: number): Float32Array | null {
  const sum = new Float32Array(dimension);
  let any = false;
  for (const raw of vectors) {
    const unit = toUnitVector(raw, dimension);
    if (!unit) continue;
    any = true;
    for (let i = 0; i < dimension; i++) sum[i]! += unit[i]!;
  }
  return any ? toUnitVector(sum, dimension) : null;
}
