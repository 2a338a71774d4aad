import type { Memory, RankingWeights, RecallHit, VectorMode } from '@zeromem/core';
import type { IdMap } from './id-map.ts';
import type { RankingQuery } from './ranking-queries.ts';
import { shapeQuery } from './query-shape.ts';
import type { NamespaceInfo } from './replay.ts';

/** One line of the run file. */
export interface RunLine {
  qid: string;
  ranked_ids: string[];
}

/** What ranking needs besides the queries. None of it comes from the gold data. */
export interface RankContext {
  memory: Memory;
  ids: IdMap;
  namespaces: ReadonlyMap<string, NamespaceInfo>;
  /** Least ids per query when the namespace has them (`max(k, 10)`). */
  depth: number;
  weights: Partial<RankingWeights> | undefined;
  /** recall's `minRelevance`; undefined: recall's default. */
  minRelevance: number | undefined;
  onProgress?: (done: number, total: number) => void;
}

/** The ranking of every query, with how it went. */
export interface RankResult {
  lines: RunLine[];
  /** Milliseconds of each `recall` call. */
  latencies: number[];
  /** Queries whose recall returned fewer than `depth` ids, topped up with the namespace's newest memories. */
  padded: number;
  /** Queries asked of a namespace with no memories. */
  emptyNamespace: string[];
  /** Queries without a time, answered with `now` = the namespace's latest memory. */
  untimed: number;
  /** How the vector side took part, per recall. */
  vectorModes: Partial<Record<VectorMode, number>>;
  /** Queries asked in their own namespace that recall answered with no hits. */
  ownEmpty: number;
  /** Each query asked again in another namespace of the set (see {@link foreignNamespace}). */
  foreign: { asked: number; empty: number };
  /** Per query: the relevance of its own-namespace hits (first `depth`) and the best relevance of its foreign recall. */
  relevance: RelevanceLine[];
}

/** One line of the relevance file: what recall's floor would keep, per query. */
export interface RelevanceLine {
  qid: string;
  /** `[data id, relevance, lexical share, semantic share]` of the own-namespace hits, in rank order. */
  own: Array<[string, number, number, number]>;
  /** `[relevance, lexical share, semantic share]` of the foreign recall's hits, in rank order (empty: not asked, or no hit). */
  foreign: Array<[number, number, number]>;
}

function evidenceOf(hit: RecallHit): [number, number, number] {
  const { lexical, semantic } = hit.explain.evidence;
  return [round(hit.relevance), round(lexical?.share ?? 0), round(semantic?.share ?? 0)];
}

function round(value: number): number {
  return Math.round(value * 1e4) / 1e4;
}

/**
 * The namespace a query is asked in as a foreign query: the next namespace of the set in
 * sorted order (wrapping around) that holds memories. Its gold cannot be there (a query is
 * only ever answered from its own namespace), so every hit is one recall should not give.
 */
export function foreignNamespace(ns: string, namespaces: readonly string[]): string | undefined {
  if (namespaces.length < 2) return undefined;
  const at = namespaces.indexOf(ns);
  return namespaces[(at + 1) % namespaces.length];
}

/**
 * Answers each query with `recall` in its own namespace (a transcript query as a
 * conversation, see query-shape.ts), `now` = the query's time (or the
 * namespace's latest memory when the query has none) and `trackAccess: false`, so no
 * query changes what the next one finds. The ids come back as data ids (decoded, with
 * duplicate aliases after their record). When recall returns fewer than `depth` ids (a
 * lexical-only recall matches only texts sharing a word), the list is topped up with the
 * namespace's newest memories from `list`.
 */
export async function rankQueries(queries: readonly RankingQuery[], ctx: RankContext): Promise<RankResult> {
  const result: RankResult = { lines: [], latencies: [], padded: 0, emptyNamespace: [], untimed: 0, vectorModes: {}, ownEmpty: 0, foreign: { asked: 0, empty: 0 }, relevance: [] };
  const k = Math.min(1000, ctx.depth);
  const filled = [...ctx.namespaces].filter(([, info]) => info.records > 0).map(([ns]) => ns).sort();
  for (const query of queries) {
    const namespace = { userId: query.ns };
    const info = ctx.namespaces.get(query.ns);
    if (query.ts === undefined) result.untimed++;
    const now = query.ts ?? info?.latest;
    const started = performance.now();
    const options = {
      k,
      trackAccess: false,
      ...(now === undefined ? {} : { now }),
      ...(ctx.weights ? { weights: ctx.weights } : {}),
      ...(ctx.minRelevance === undefined ? {} : { minRelevance: ctx.minRelevance }),
    };
    const recalled = await ctx.memory.recall(namespace, shapeQuery(query.query), options);
    result.latencies.push(performance.now() - started);
    if (!recalled.hits.length) result.ownEmpty++;
    let foreign: Array<[number, number, number]> = [];
    const elsewhere = foreignNamespace(query.ns, filled);
    if (elsewhere !== undefined) {
      const answer = await ctx.memory.recall({ userId: elsewhere }, shapeQuery(query.query), options);
      result.foreign.asked++;
      if (!answer.hits.length) result.foreign.empty++;
      foreign = answer.hits.slice(0, ctx.depth).map(evidenceOf);
    }
    const own = recalled.hits.flatMap((hit) => ctx.ids.toDataRanking(query.ns, [hit.id]).map((id): [string, number, number, number] => [id, ...evidenceOf(hit)]));
    result.relevance.push({ qid: query.qid, own: own.slice(0, ctx.depth), foreign });
    result.vectorModes[recalled.vector] = (result.vectorModes[recalled.vector] ?? 0) + 1;
    const stored = recalled.hits.map((hit) => hit.id);
    let ranked = ctx.ids.toDataRanking(query.ns, stored);
    // Topping up is for lexical-only runs without a floor: with one, a short answer is the answer.
    if (ctx.minRelevance === 0 && ranked.length < ctx.depth && (info?.records ?? 0) > stored.length) {
      ranked = await topUp(ctx, query.ns, stored);
      result.padded++;
    }
    if (!info?.records) result.emptyNamespace.push(query.qid);
    result.lines.push({ qid: query.qid, ranked_ids: ranked });
    ctx.onProgress?.(result.lines.length, queries.length);
  }
  return result;
}

/** Appends the namespace's newest memories not ranked yet until there are `depth` ids. */
async function topUp(ctx: RankContext, ns: string, stored: string[]): Promise<string[]> {
  const ids = [...stored];
  const have = new Set(stored);
  let cursor: string | undefined;
  let ranked = ctx.ids.toDataRanking(ns, ids);
  while (ranked.length < ctx.depth) {
    const page = await ctx.memory.list({ userId: ns }, { limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const record of page.items) {
      if (ranked.length >= ctx.depth) break;
      if (have.has(record.id)) continue;
      have.add(record.id);
      ids.push(record.id);
      ranked = ctx.ids.toDataRanking(ns, ids);
    }
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return ranked;
}
