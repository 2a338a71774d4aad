import { parseDataTime } from './data-time.ts';
import { JsonlError, readJsonl } from './read-jsonl.ts';

/**
 * A query as the ranking sees it. Deliberately without `answer`, `gold_ids`,
 * `gold_sessions` or `category`: the ranking code path has no way to look at them.
 */
export interface RankingQuery {
  line: number;
  qid: string;
  ns: string;
  query: string;
  /** When it is asked (epoch ms, UTC), or undefined when the data has no time. */
  ts: number | undefined;
}

/**
 * Reads the queries for ranking: copies only `qid`, `ns`, `query` and `ts` out of each
 * line, so the objects handed to recall carry nothing that could leak the answer.
 * `limit` keeps the first N queries. A malformed line throws with its file and line.
 */
export async function readRankingQueries(file: string, limit = Number.POSITIVE_INFINITY): Promise<RankingQuery[]> {
  const queries: RankingQuery[] = [];
  const seen = new Set<string>();
  for await (const { line, value } of readJsonl(file)) {
    if (queries.length >= limit) break;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new JsonlError(file, line, 'a query line must be a JSON object');
    // Read exactly these four fields; nothing else of the line goes further.
    const { qid, ns, query, ts } = value as { qid?: unknown; ns?: unknown; query?: unknown; ts?: unknown };
    const id = typeof qid === 'number' ? String(qid) : qid;
    if (typeof id !== 'string' || id === '') throw new JsonlError(file, line, '"qid" must be a non-empty string');
    if (seen.has(id)) throw new JsonlError(file, line, `"qid" ${JSON.stringify(id)} appears twice`);
    if (typeof ns !== 'string') throw new JsonlError(file, line, '"ns" must be a string');
    if (typeof query !== 'string') throw new JsonlError(file, line, '"query" must be a string');
    const time = parseDataTime(ts);
    if (time !== undefined && Number.isNaN(time)) throw new JsonlError(file, line, `"ts" must be an ISO 8601 time or null, got ${JSON.stringify(ts)}`);
    seen.add(id);
    queries.push({ line, qid: id, ns, query, ts: time });
  }
  return queries;
}
