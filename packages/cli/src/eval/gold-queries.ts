import type { GoldQuery } from './metrics.ts';
import { JsonlError, readJsonl } from './read-jsonl.ts';

/**
 * The scorer's reader: `qid`, `gold_ids` and `category` of the first `limit` queries.
 * Only scoring uses it, after the run file is written. A query without gold ids is kept
 * (with none) so the scorer can count it as left out.
 */
export async function readGoldQueries(file: string, limit = Number.POSITIVE_INFINITY): Promise<GoldQuery[]> {
  const queries: GoldQuery[] = [];
  for await (const { line, value } of readJsonl(file)) {
    if (queries.length >= limit) break;
    const { qid, gold_ids: gold, category, stale_ids: stale } = value as { qid?: unknown; gold_ids?: unknown; category?: unknown; stale_ids?: unknown };
    const id = typeof qid === 'number' ? String(qid) : qid;
    if (typeof id !== 'string') throw new JsonlError(file, line, '"qid" must be a string');
    if (gold !== undefined && gold !== null && !(Array.isArray(gold) && gold.every((g) => typeof g === 'string' || typeof g === 'number'))) {
      throw new JsonlError(file, line, '"gold_ids" must be an array of ids');
    }
    if (stale !== undefined && !(Array.isArray(stale) && stale.every((s) => typeof s === 'string' || typeof s === 'number'))) {
      throw new JsonlError(file, line, '"stale_ids" must be an array of ids');
    }
    queries.push({
      qid: id,
      gold: Array.isArray(gold) ? gold.map(String) : [],
      category: typeof category === 'string' && category !== '' ? category : '(none)',
      ...(Array.isArray(stale) ? { stale: stale.map(String) } : {}),
    });
  }
  return queries;
}

/** Reads a run file back: qid -> ranked ids. */
export async function readRun(file: string): Promise<Map<string, string[]>> {
  const run = new Map<string, string[]>();
  for await (const { line, value } of readJsonl(file)) {
    const { qid, ranked_ids: ranked } = value as { qid?: unknown; ranked_ids?: unknown };
    if (typeof qid !== 'string' || !Array.isArray(ranked)) throw new JsonlError(file, line, 'a run line must be {"qid": string, "ranked_ids": [ids]}');
    run.set(qid, ranked.map(String));
  }
  return run;
}
