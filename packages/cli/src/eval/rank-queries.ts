import type { Memory, RankingWeights, VectorMode } from '@zeromem/core';
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
  const result: RankResult = { lines: [], latencies: [], padded: 0, emptyNamespace: [], untimed: 0, vectorModes: {} };
  const k = Math.min(1000, ctx.depth);
  for (const query of queries) {
    const namespace = { userId: query.ns };
    const info = ctx.namespaces.get(query.ns);
    if (query.ts === undefined) result.untimed++;
    const now = query.ts ?? info?.latest;
    const started = performance.now();
    const recalled = await ctx.memory.recall(namespace, shapeQuery(query.query), {
      k,
      trackAccess: false,
      ...(now === undefined ? {} : { now }),
      ...(ctx.weights ? { weights: ctx.weights } : {}),
    });
    result.latencies.push(performance.now() - started);
    result.vectorModes[recalled.vector] = (result.vectorModes[recalled.vector] ?? 0) + 1;
    const stored = recalled.hits.map((hit) => hit.id);
    let ranked = ctx.ids.toDataRanking(query.ns, stored);
    if (ranked.length < ctx.depth && (info?.records ?? 0) > stored.length) {
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
