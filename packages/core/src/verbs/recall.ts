import type { Embedder } from '../public/embedder.ts';
import { toUnitVector } from '../embed/embedder.ts';
import { embedderFailure } from '../embed/embed-queue.ts';
import type { ZeromemError } from '../public/errors.ts';
import type { IndexManager } from '../search/index-manager.ts';
import type { NamespaceIndex } from '../search/namespace-index.ts';
import { requireNamespace } from '../model/namespace.ts';
import type { RecordFilter } from '../public/list.ts';
import type { Layer, MemoryRecord, TimeInput } from '../public/memory-record.ts';
import type { RankingWeights } from '../public/ranking.ts';
import { validateRecall } from '../rank/validate-recall.ts';
import type { PreparedFilter } from '../model/validate-filter.ts';
import type { AccessTracker } from '../rank/access-tracker.ts';
import { readQuerySignals, signalFactors, type SignalFactors } from '../rank/query-signals.ts';
import type { QuerySignals } from '../public/query-signals.ts';
import { rankFactors, type RankFactors } from '../rank/ranking.ts';
import { combineEvidence, lexicalEvidence, semanticEvidence } from '../rank/relevance.ts';
import type { RelevanceEvidence } from '../public/relevance.ts';
import { SUBJECT_TOKENS } from '../rank/subject-words.ts';
import { isValidAt } from '../model/validity.ts';
import type { CosineBackground } from '../search/vector-index.ts';
import { isEmptyFilter, matchesFilter } from '../store/match.ts';
import type { RecallContext } from '../write/verb-context.ts';
import { rewarmHits } from '../lifecycle/rewarm.ts';
import type { Redactor } from '../redact/redactor.ts';
import type { MemoryContext } from './memory-context.ts';
import type { RecallHit, RecallResult, VectorMode, RecallOptions } from '../public/recall.ts';

/** Text hits whose conversation neighbours become candidates too. */
const NEIGHBOUR_SEEDS = 20;
/** A turn this long (characters) or shorter takes its neighbours' words at full weight; longer ones take less. */
const SHORT_TURN = 300;
const NO_FILTER: PreparedFilter = {};
const NO_IDS: readonly string[] = [];

/** Candidates taken from each side before fusion: enough that ranking factors can reorder. */
function candidatePool(k: number): number {
  return Math.max(100, k * 5);
}

/**
 * Recall in one namespace: the query redacted as stored text is (with redaction on, so
 * hashed values match), the hits {@link rank}ed, and, when the recall counts as access
 * (`trackAccess`, default true), its cold hits re-warmed, each hit showing its record after that.
 */
export async function recall(ctx: MemoryContext, namespace: unknown, query: unknown, options: unknown): Promise<RecallResult> {
  const result = await rank(ctx, namespace, await redactQuery(ctx.redactor, query), options, ctx.pendingEmbeddings);
  return rewarmHits(ctx, requireNamespace(namespace, ctx.limits.maxNameLength), result, (options as RecallOptions | undefined)?.trackAccess !== false);
}

/** With redaction on, a query (a text or the turns of a conversation) is masked and hashed as stored text is. */
async function redactQuery(redactor: Redactor | undefined, query: unknown): Promise<unknown> {
  if (!redactor) return query;
  if (typeof query === 'string') return redactor.redactQuery(query);
  if (!Array.isArray(query)) return query; // recall's validation answers
  return Promise.all(
    query.map(async (turn: unknown) =>
      turn !== null && typeof turn === 'object' && typeof (turn as { content?: unknown }).content === 'string'
        ? { ...(turn as object), content: await redactor.redactQuery((turn as { content: string }).content) }
        : turn,
    ),
  );
}

/**
 * Hybrid recall in one namespace: BM25 (in conversation context), vector and neighbour
 * candidates, fused, then ranked by relevance x importance x recency x heat x the query's
 * signals (speaker, time, focus); filters and expiry applied before ranking.
 */
async function rank(ctx: RecallContext, namespace: unknown, query: unknown, options: unknown, pending: () => number): Promise<RecallResult> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const clockNow = ctx.clock.now();
  const opts = validateRecall(query, options, ctx.limits, clockNow, ctx.embedder?.fusionWeight);
  const text = opts.lexicalQuery;
  const index = await ctx.indexes.ready(ns.key);
  // Expiry is judged by the real clock; `now` only moves recency and heat. With no filter
  // and no cold or expired record in the index, every hit passes: no check per hit.
  const everyRecordLive = index.allLive(clockNow, opts.includeCold);
  const passing = (filter: PreparedFilter) => (id: string) => {
    const record = index.records.get(id);
    return record !== undefined && (opts.includeCold || record.tier !== 'cold') && matchesFilter(record, filter, clockNow);
  };
  const everyRecordPasses = everyRecordLive && isEmptyFilter(opts.filter) && (opts.filter.validAt === undefined || !index.hasKeyedFacts());
  const accept = everyRecordPasses ? undefined : passing(opts.filter);
  const pool = candidatePool(opts.k);
  const found = text.trim() ? index.text.search(text, pool * 2) : [];
  const textHits = (accept ? found.filter((hit) => accept(hit.id)) : found).slice(0, pool);

  let mode: VectorMode = 'no-embedder';
  let queryVector: Float32Array | null = null;
  let vectorError: ZeromemError | undefined;
  if (ctx.embedder && text.trim() && index.records.size === 0) {
    // Nothing to compare a query vector with: the model need not load for it (a server on
    // an empty store answers its first search without loading one; issue 32).
    mode = 'no-vectors-yet';
  } else if (ctx.embedder && text.trim()) {
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
  }
  // Each candidate's record, looked up once: text hits, vector hits, and (a short turn is
  // often found through the turn next to it, "yes, the blue one") the best text hits' neighbours.
  const candidates = new Map<string, MemoryRecord>();
  for (const hit of textHits) candidates.set(hit.id, index.records.get(hit.id)!);
  for (const id of cosine.keys()) if (!candidates.has(id)) candidates.set(id, index.records.get(id)!);
  if (opts.weights.context > 0) {
    for (let i = 0; i < Math.min(NEIGHBOUR_SEEDS, textHits.length); i++) {
      for (const id of index.turns.neighbours(candidates.get(textHits[i]!.id)!)) {
        if (!candidates.has(id) && (!accept || accept(id))) candidates.set(id, index.records.get(id)!);
      }
    }
  }
  if (queryVector && index.vectors?.size) {
    for (const id of candidates.keys()) {
      if (cosine.has(id)) continue;
      const score = index.vectors.similarity(id, queryVector);
      if (score !== undefined) cosine.set(id, score);
    }
  }
  // Neighbours lend their words whatever the filter says, unless expired (or cold).
  const live = everyRecordLive ? undefined : passing(NO_FILTER);
  const lexical = contextualText(index, text, textHits, candidates, opts.weights.context, live, unreturnable(index, opts.filter.validAt));
  // Cosines are read against the query's own embedding space (see VectorIndex.background).
  const background = queryVector && cosine.size ? index.vectors!.background(queryVector) : null;

  const signals = await readQuerySignals(opts.askText, opts.now);
  const { hits, best } = fuse(candidates, lexical, background, cosine, opts, signals);
  if (opts.trackAccess && hits.length) {
    const ids = hits.map((hit) => hit.id);
    ctx.access.note(ns.key, ids, clockNow);
    index.noteAccess(ids, clockNow);
  }
  const reason = hits.length ? undefined : emptyReason(index.records.size, candidates.size, best, opts.answerFloor, mode);
  return { hits, vector: mode, pendingEmbeddings: pending(), ...(vectorError ? { vectorError } : {}), signals, ...(reason ? { reason } : {}) };
}

/** Why a recall found nothing, in words a person or an agent can act on. */
function emptyReason(records: number, candidates: number, best: number, floor: number, vector: VectorMode): string {
  if (records === 0) return 'nothing relevant: this namespace holds no memories';
  // Without the vector side (no embedder, still loading, failed), "no meaning" was never asked:
  // say so, so an agent can tell "nothing here" from "nothing found by words yet".
  if (candidates === 0 && vector !== 'used') {
    return `nothing relevant: no memory shares a word with the query; meanings were not compared (vector: ${vector})`;
  }
  if (candidates === 0) return 'nothing relevant: no memory shares a word or a meaning with the query';
  if (best < floor) return `nothing relevant: the best match's relevance ${best.toFixed(3)} is below the floor ${floor}`;
  return 'nothing relevant: no memory passed minScore';
}

/** The keyed facts' versions that do not hold at `validAt` (none without one: every version is asked for). */
function unreturnable(index: NamespaceIndex, validAt: number | undefined): readonly string[] {
  if (validAt === undefined || !index.hasKeyedFacts()) return NO_IDS;
  const out: string[] = [];
  for (const id of index.keyedFacts()) if (!isValidAt(index.records.get(id)!, validAt)) out.push(id);
  return out;
}

/** A candidate's lexical evidence: its own BM25 and what it borrows from its neighbours, and the query word weight they hold. */
interface LexicalScore {
  own: number | null;
  context: number | null;
  /** Query word weight matched (see `Bm25Index.coverage`), its neighbour's counted as its BM25 is. */
  matched: number;
}

/** The lexical evidence of every candidate, and the weight of all the query's words. */
interface LexicalScores {
  scores: Map<string, LexicalScore>;
  possible: number;
}

/**
 * BM25 read in context: a turn's own score plus `weight × min(1, SHORT_TURN / length) ×`
 * its best neighbour's score, so a short turn borrows its neighbours' words and a long
 * one stands on its own (LongMemEval R@10 +0.05 when measured; see BENCHMARKS.md).
 */
function contextualText(
  index: NamespaceIndex,
  query: string,
  textHits: Array<{ id: string; score: number }>,
  candidates: ReadonlyMap<string, MemoryRecord>,
  weight: number,
  live: ((id: string) => boolean) | undefined,
  except: readonly string[],
): LexicalScores {
  const bm25 = new Map<string, number>();
  for (const hit of textHits) bm25.set(hit.id, hit.score);
  const neighbours = new Map<string, readonly string[]>();
  const unscored = new Set<string>();
  for (const [id, record] of candidates) {
    if (!bm25.has(id)) unscored.add(id);
    if (weight <= 0) continue;
    const turns = index.turns.neighbours(record);
    const around = live && turns.length ? turns.filter(live) : turns;
    if (!around.length) continue;
    neighbours.set(id, around);
    for (const other of around) if (!bm25.has(other)) unscored.add(other);
  }
  if (query.trim() && unscored.size) for (const [id, score] of index.text.scoreDocs(query, unscored)) bm25.set(id, score);
  // Only memories with a BM25 score hold a query word: their coverage is all there is to read.
  // Words are weighed among what recall can return; the words naming every memory's subject are no evidence.
  const { possible, matched } = query.trim() ? index.text.coverage(query, bm25.keys(), { except, ignore: SUBJECT_TOKENS }) : { possible: 0, matched: new Map<string, number>() };
  const scores = new Map<string, LexicalScore>();
  for (const [id, record] of candidates) {
    const own = bm25.get(id) ?? null;
    let best = 0;
    let bestMatched = 0;
    for (const other of neighbours.get(id) ?? NO_IDS) {
      const score = bm25.get(other) ?? 0;
      if (score > best) {
        best = score;
        bestMatched = matched.get(other) ?? 0;
      }
    }
    const share = Math.min(1, SHORT_TURN / Math.max(1, record.content.length));
    const borrowed = best > 0 ? weight * share : 0;
    scores.set(id, { own, context: best > 0 ? borrowed * best : null, matched: (matched.get(id) ?? 0) + Math.min(1, borrowed) * bestMatched });
  }
  return { scores, possible };
}

function fuse(
  candidates: ReadonlyMap<string, MemoryRecord>,
  { scores: lexical, possible }: LexicalScores,
  background: CosineBackground | null,
  cosine: Map<string, number>,
  opts: ReturnType<typeof validateRecall>,
  signals: QuerySignals,
): { hits: RecallHit[]; best: number } {
  let maxText = 0;
  for (const { own, context } of lexical.values()) maxText = Math.max(maxText, (own ?? 0) + (context ?? 0));
  // Theoretical-minimum normalization (0 as the floor, the best candidate as 1) for both
  // sides: min-max stretched a flat vector side to 0..1 and let it outvote BM25.
  let maxCos = 0;
  for (const value of cosine.values()) maxCos = Math.max(maxCos, value);
  const { weights } = opts;
  // Every candidate is scored; the hit and its explain are made only for those returned.
  const scored: ScoredCandidate[] = [];
  for (const [id, record] of candidates) {
    const { own, context, matched } = lexical.get(id)!;
    const rawCos = cosine.get(id) ?? null;
    const textScore = maxText > 0 ? ((own ?? 0) + (context ?? 0)) / maxText : 0;
    const vectorScore = rawCos === null || maxCos <= 1e-9 ? 0 : Math.max(0, rawCos) / maxCos;
    const factors = rankFactors(record, opts.now, weights);
    const boosts = signalFactors(record, signals, opts.now, weights);
    const multiplier = factors.importance * factors.recency * factors.heat * boosts.speaker * boosts.time * boosts.focus;
    const text = weights.text * textScore * multiplier;
    const vector = weights.vector * vectorScore * multiplier;
    const evidence = combineEvidence(lexicalEvidence(matched, possible), rawCos === null || !background ? null : semanticEvidence(rawCos, background), opts.conversation);
    scored.push({ id, record, own, context, rawCos, textScore, vectorScore, factors, boosts, text, vector, score: text + vector, evidence });
  }
  scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  const page: ScoredCandidate[] = [];
  let best = 0;
  for (const c of scored) {
    if (page.length === opts.k) break;
    best = Math.max(best, c.evidence.relevance);
    if (!(c.evidence.relevance >= opts.minRelevance)) continue;
    if (opts.minScore > 0 && !(c.score >= opts.minScore)) continue;
    page.push(c);
  }
  // "Nothing relevant" is the answer when no hit of the page has the evidence the floor asks for.
  if (!page.some((c) => c.evidence.relevance >= opts.answerFloor)) return { hits: [], best };
  const hits: RecallHit[] = [];
  for (const c of page) {
    const relevance = weights.text * c.textScore + weights.vector * c.vectorScore;
    hits.push({
      id: c.id,
      score: c.score,
      relevance: c.evidence.relevance,
      record: c.record,
      explain: {
        evidence: c.evidence,
        bm25: c.own,
        contextBm25: c.context,
        cosine: c.rawCos,
        textScore: c.textScore,
        vectorScore: c.vectorScore,
        relevance,
        ...c.factors,
        ...c.boosts,
        contributions: { text: c.text, vector: c.vector },
        validity: c.record.key === null ? null : { key: c.record.key, validFrom: c.record.validFrom!, validUntil: c.record.validUntil, closedBy: c.record.closedBy },
      },
    });
  }
  return { hits, best };
}

/** A candidate's score and the parts its explain is made of. */
interface ScoredCandidate {
  id: string;
  record: MemoryRecord;
  own: number | null;
  context: number | null;
  rawCos: number | null;
  textScore: number;
  vectorScore: number;
  factors: RankFactors;
  boosts: SignalFactors;
  text: number;
  vector: number;
  score: number;
  evidence: RelevanceEvidence;
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
