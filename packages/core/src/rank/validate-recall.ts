import { DEFAULT_WEIGHTS } from './ranking.ts';
import type { RankingWeights } from '../public/ranking.ts';
import { DEFAULT_MIN_RELEVANCE } from './relevance.ts';
import { IssueList, checkEnum, checkKnownKeys, checkTime, describe, isPlainObject, join } from '../model/checks.ts';
import { invalidInput } from '../model/errors.ts';
import type { Limits } from '../public/limits.ts';
import { LAYERS } from '../model/types.ts';
import type { Layer } from '../public/memory-record.ts';
import { VALIDITY_FIELDS, checkValidity, validateFilter, type PreparedFilter } from '../model/validate-filter.ts';
import type { ConversationTurn } from '../public/recall.ts';

const RECALL_FIELDS = ['k', 'filters', 'layers', 'now', 'weights', 'trackAccess', 'includeCold', 'minScore', 'minRelevance', ...VALIDITY_FIELDS] as const;

/** Most hits one recall returns. */
export const MAX_RECALL_K = 1000;
/** Longest query, in characters. */
export const MAX_QUERY_LENGTH = 32 * 1024;

const ROLES = ['user', 'assistant', 'system', 'tool'] as const;

/** Validated recall options. */
export interface PreparedRecall {
  /** Text for BM25: the whole query; for a conversation, its latest user turn counted twice. */
  lexicalQuery: string;
  /** Texts whose embeddings are summed into the query vector. */
  vectorQueries: string[];
  /** What the user asks now: the query, or a conversation's latest user turn (read for time, speaker and focus signals). */
  askText: string;
  /** The query is a conversation of two turns or more (`[{ role, content }, ...]`), not one text. */
  conversation: boolean;
  k: number;
  filter: PreparedFilter;
  now: number;
  weights: RankingWeights;
  trackAccess: boolean;
  /** Cold-tier records are candidates too. */
  includeCold: boolean;
  /** Hits scoring below this are left out (0 keeps every hit). */
  minScore: number;
  /** Hits whose absolute relevance is below this are left out (0 keeps every hit). */
  minRelevance: number;
  /** No hit of the page reaches this relevance: the answer is `hits: []` (0: always an answer). */
  answerFloor: number;
}

/**
 * Validates a recall query and its options; throws INVALID_INPUT listing every problem.
 * `vectorWeight` is the embedder's default share of relevance (weights.vector).
 */
export function validateRecall(query: unknown, options: unknown, limits: Limits, clockNow: number, vectorWeight = DEFAULT_WEIGHTS.vector): PreparedRecall {
  const issues = new IssueList();
  const texts = checkQuery(query, issues);
  const opts: Record<string, unknown> = options === undefined ? {} : isPlainObject(options) ? options : {};
  if (options !== undefined && !isPlainObject(options)) issues.add('', `options must be an object, got ${describe(options)}`);
  checkKnownKeys(opts, RECALL_FIELDS, '', issues);
  let k = 10;
  if (opts.k !== undefined) {
    if (typeof opts.k === 'number' && Number.isInteger(opts.k) && opts.k >= 1 && opts.k <= MAX_RECALL_K) k = opts.k;
    else issues.add('k', `must be a whole number from 1 to ${MAX_RECALL_K}, got ${describe(opts.k)}`);
  }
  const now = opts.now === undefined ? clockNow : checkTime(opts.now, 'now', issues);
  const weights = { ...DEFAULT_WEIGHTS, text: 1 - vectorWeight, vector: vectorWeight };
  if (opts.weights !== undefined) {
    if (!isPlainObject(opts.weights)) issues.add('weights', 'must be an object of numbers');
    else {
      checkKnownKeys(opts.weights, Object.keys(DEFAULT_WEIGHTS), 'weights', issues);
      for (const [key, value] of Object.entries(opts.weights)) {
        if (!(key in weights)) continue;
        const isSpan = key.endsWith('Ms');
        const ok = typeof value === 'number' && Number.isFinite(value) && (isSpan ? value > 0 : value >= 0 && (key === 'text' || key === 'vector' || value <= 1));
        if (ok) weights[key as keyof RankingWeights] = value;
        else issues.add(join('weights', key), isSpan ? 'must be a positive number of milliseconds' : `must be a number from 0${key === 'text' || key === 'vector' ? '' : ' to 1'}, got ${describe(value)}`);
      }
      if (weights.text + weights.vector <= 0) issues.add('weights', 'text and vector weights must not both be 0');
    }
  }
  let trackAccess = true;
  if (opts.trackAccess !== undefined) {
    if (typeof opts.trackAccess === 'boolean') trackAccess = opts.trackAccess;
    else issues.add('trackAccess', 'must be a boolean');
  }
  if (opts.includeCold !== undefined && typeof opts.includeCold !== 'boolean') issues.add('includeCold', 'must be a boolean');
  const minScore = opts.minScore === undefined ? 0 : opts.minScore;
  if (!(typeof minScore === 'number' && Number.isFinite(minScore) && minScore >= 0)) issues.add('minScore', `must be a number, 0 or more, got ${describe(opts.minScore)}`);
  // Unset, the default floor is the answer's (see DEFAULT_MIN_RELEVANCE); set, it is each hit's.
  const minRelevance = opts.minRelevance === undefined ? 0 : opts.minRelevance;
  if (!(typeof minRelevance === 'number' && Number.isFinite(minRelevance) && minRelevance >= 0 && minRelevance <= 1)) {
    issues.add('minRelevance', `must be a number from 0 to 1, got ${describe(opts.minRelevance)}`);
  }
  let filter: PreparedFilter = {};
  try {
    filter = validateFilter(opts.filters, limits, 'recall filters');
  } catch (err) {
    for (const issue of (err as { details: { issues?: Array<{ path: string; message: string }> } }).details.issues ?? []) {
      issues.add(join('filters', issue.path), issue.message);
    }
  }
  if (opts.layers !== undefined) {
    if (!Array.isArray(opts.layers) || opts.layers.length === 0) issues.add('layers', `must be a non-empty array of ${LAYERS.join(', ')}`);
    else {
      const layers = opts.layers.map((layer, i) => checkEnum(layer, LAYERS, join('layers', i), issues)) as Layer[];
      const allowed = new Set(layers.filter((layer) => filter.layers === undefined || filter.layers.has(layer)));
      filter = { ...filter, layers: allowed };
    }
  }
  // Keyed facts that hold now (the clock's, not the ranking's `now`), or at `asOf`.
  const validAt = checkValidity(opts, clockNow, '', issues);
  if (validAt !== undefined) filter = { ...filter, validAt };
  if (!issues.ok) throw invalidInput('recall', issues.items);
  return { ...texts!, k, filter, now: now!, weights, trackAccess, includeCold: opts.includeCold === true, minScore: minScore as number, minRelevance: minRelevance as number, answerFloor: opts.minRelevance === undefined ? DEFAULT_MIN_RELEVANCE : (minRelevance as number) };
}

/**
 * A query is a string, or a conversation (`[{ role, content }]`, oldest first): what was
 * said last by the user matters most, so its turn counts twice for BM25 and its
 * embedding is added to the whole conversation's.
 */
function checkQuery(query: unknown, issues: IssueList): Pick<PreparedRecall, 'lexicalQuery' | 'vectorQueries' | 'askText' | 'conversation'> | undefined {
  if (typeof query === 'string') {
    if (query.length > MAX_QUERY_LENGTH) issues.add('query', `must be at most ${MAX_QUERY_LENGTH} characters`);
    return { lexicalQuery: query, vectorQueries: [query], askText: query, conversation: false };
  }
  if (!Array.isArray(query) || query.length === 0) {
    issues.add('query', `must be a string or a non-empty array of { role, content } turns, got ${describe(query)}`);
    return undefined;
  }
  const turns: ConversationTurn[] = [];
  let length = 0;
  query.forEach((turn: unknown, i) => {
    const path = join('query', i);
    if (!isPlainObject(turn)) return issues.add(path, 'must be an object like { role, content }');
    checkKnownKeys(turn, ['role', 'content'], path, issues);
    const role = checkEnum(turn.role, ROLES, join(path, 'role'), issues);
    if (typeof turn.content !== 'string') return issues.add(join(path, 'content'), `must be a string, got ${describe(turn.content)}`);
    length += turn.content.length;
    if (role) turns.push({ role, content: turn.content });
  });
  if (length > MAX_QUERY_LENGTH) issues.add('query', `must hold at most ${MAX_QUERY_LENGTH} characters in all`);
  if (!issues.ok) return undefined;
  const all = turns.map((turn) => turn.content).join('\n');
  const lastUser = [...turns].reverse().find((turn) => turn.role === 'user')?.content;
  const conversation = turns.length > 1;
  if (lastUser === undefined || !lastUser.trim()) return { lexicalQuery: all, vectorQueries: [all], askText: all, conversation };
  return { lexicalQuery: `${all}\n${lastUser}`, vectorQueries: [all, lastUser], askText: lastUser, conversation };
}
