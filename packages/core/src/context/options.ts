import { IssueList, checkKnownKeys, checkName, checkTime, describe, isPlainObject, join } from '../model/checks.ts';
import { invalidInput } from '../model/errors.ts';
import { ZeromemError } from '../public/errors.ts';
import type { Limits } from '../public/limits.ts';
import { checkNamespace, requireNamespace } from '../model/namespace.ts';
import type { Namespace, TimeInput } from '../public/memory-record.ts';
import { validateRecall } from '../rank/validate-recall.ts';
import type { ConversationTurn } from '../public/recall.ts';
import type { ContextLayer } from '../public/context.ts';

/** All {@link ContextLayer} values, in fill order. */
export const CONTEXT_LAYERS: readonly ContextLayer[] = ['system', 'profile', 'session', 'long_term', 'knowledge'];
/** The layers filled from stored memories. */
export type MemoryLayer = Exclude<ContextLayer, 'system'>;
const MEMORY_LAYERS: readonly MemoryLayer[] = ['profile', 'session', 'long_term', 'knowledge'];

/** Largest total budget, in tokens. */
export const MAX_BUDGET = 1_000_000;
/** Most items one memory layer holds. */
export const MAX_LAYER_ITEMS = 1000;
/** Default total budget. */
export const DEFAULT_BUDGET = 2000;
/** Default item quotas: a profile's facts, enough turns for a conversation, a screenful of recalled facts. */
export const DEFAULT_MAX_ITEMS: Readonly<Record<MemoryLayer, number>> = Object.freeze({ profile: 20, session: 50, long_term: 20, knowledge: 20 });

/** A memory layer after validation. */
export interface PreparedLayer {
  layer: MemoryLayer;
  maxItems: number;
  maxTokens: number;
  namespace: Namespace;
}

/** Validated {@link BuildContextOptions}. */
export interface PreparedContext {
  namespace: Namespace;
  query: string | ConversationTurn[] | undefined;
  now: number | undefined;
  budget: number;
  system: string[];
  systemMaxTokens: number;
  sessionId: string | undefined;
  /** Enabled memory layers, in fill order. */
  layers: PreparedLayer[];
  maxItemTokens: number | undefined;
  fullHistory: boolean;
  trackAccess: boolean;
  /** Time keyed facts must hold at (epoch ms), as given; undefined: now. */
  asOf: number | undefined;
  includeClosed: boolean;
  /** recall's `minRelevance` for the recalled layers; undefined: recall's default. */
  minRelevance: number | undefined;
}

const FIELDS = ['namespace', 'query', 'now', 'budget', 'system', 'sessionId', 'layers', 'maxItemTokens', 'fullHistory', 'trackAccess', 'asOf', 'includeClosed', 'minRelevance'] as const;

/**
 * Validates buildContext options against the memory's limits; every problem is reported
 * at once as INVALID_INPUT (a missing namespace is NAMESPACE_REQUIRED).
 */
export function validateContextOptions(options: unknown, limits: Limits): PreparedContext {
  const { maxNameLength } = limits;
  if (!isPlainObject(options)) {
    if (options === undefined || options === null) requireNamespace(undefined, maxNameLength);
    throw invalidInput('buildContext options', [{ path: '', message: `must be an object like { namespace, query, budget }, got ${describe(options)}` }]);
  }
  const issues = new IssueList();
  checkKnownKeys(options, FIELDS, '', issues);
  const namespace = requireNamespace(options.namespace, maxNameLength).namespace;
  const budget = options.budget === undefined ? DEFAULT_BUDGET : checkCount(options.budget, 'budget', 1, MAX_BUDGET, issues);
  const now = options.now === undefined ? undefined : checkTime(options.now, 'now', issues);
  const query = checkQuery(options.query, limits, issues);
  const system = checkSystem(options.system, issues);
  const sessionId = options.sessionId === undefined ? undefined : checkName(options.sessionId, 'sessionId', maxNameLength, issues);
  const maxItemTokens = options.maxItemTokens === undefined ? undefined : checkCount(options.maxItemTokens, 'maxItemTokens', 1, MAX_BUDGET, issues);
  const fullHistory = checkBoolean(options.fullHistory, 'fullHistory', true, issues);
  const trackAccess = checkBoolean(options.trackAccess, 'trackAccess', true, issues);
  const asOf = options.asOf === undefined ? undefined : checkTime(options.asOf, 'asOf', issues);
  const includeClosed = checkBoolean(options.includeClosed, 'includeClosed', false, issues);
  const minRelevance = options.minRelevance;
  if (minRelevance !== undefined && !(typeof minRelevance === 'number' && minRelevance >= 0 && minRelevance <= 1)) {
    issues.add('minRelevance', `must be a number from 0 to 1, got ${describe(minRelevance)}`);
  }
  if (options.asOf !== undefined && includeClosed === true) issues.add('includeClosed', 'give asOf (the facts that held then) or includeClosed (every version), not both');
  const total = budget ?? DEFAULT_BUDGET;
  let systemMaxTokens = total;
  const layers: PreparedLayer[] = [];
  const rawLayers = options.layers;
  if (rawLayers !== undefined && !isPlainObject(rawLayers)) issues.add('layers', `must be an object keyed by ${CONTEXT_LAYERS.join(', ')}`);
  const given: Record<string, unknown> = isPlainObject(rawLayers) ? rawLayers : {};
  checkKnownKeys(given, CONTEXT_LAYERS, 'layers', issues);
  if (given.system !== undefined) {
    if (!isPlainObject(given.system)) issues.add('layers.system', 'must be an object like { maxTokens }');
    else {
      checkKnownKeys(given.system, ['maxTokens'], 'layers.system', issues);
      if (given.system.maxTokens !== undefined) systemMaxTokens = checkCount(given.system.maxTokens, 'layers.system.maxTokens', 0, MAX_BUDGET, issues) ?? total;
    }
  }
  for (const layer of MEMORY_LAYERS) {
    const raw = given[layer];
    if (raw === false) continue;
    const path = join('layers', layer);
    const quota: PreparedLayer = { layer, maxItems: DEFAULT_MAX_ITEMS[layer], maxTokens: total, namespace };
    if (raw !== undefined) {
      if (!isPlainObject(raw)) {
        issues.add(path, `must be false or an object like { maxItems, maxTokens, namespace }, got ${describe(raw)}`);
        continue;
      }
      checkKnownKeys(raw, ['maxItems', 'maxTokens', 'namespace'], path, issues);
      if (raw.maxItems !== undefined) quota.maxItems = checkCount(raw.maxItems, join(path, 'maxItems'), 0, MAX_LAYER_ITEMS, issues) ?? 0;
      if (raw.maxTokens !== undefined) quota.maxTokens = checkCount(raw.maxTokens, join(path, 'maxTokens'), 0, MAX_BUDGET, issues) ?? 0;
      if (raw.namespace !== undefined) quota.namespace = checkNamespace(raw.namespace, join(path, 'namespace'), maxNameLength, issues)?.namespace ?? namespace;
    }
    layers.push(quota);
  }
  if (!issues.ok) throw invalidInput('buildContext options', issues.items);
  return {
    namespace,
    query,
    now,
    budget: total,
    system: system ?? [],
    systemMaxTokens,
    sessionId,
    layers,
    maxItemTokens,
    fullHistory: fullHistory!,
    trackAccess: trackAccess!,
    asOf,
    includeClosed: includeClosed!,
    minRelevance: minRelevance as number | undefined,
  };
}

/** A whole number in [min, max]. */
function checkCount(value: unknown, path: string, min: number, max: number, issues: IssueList): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  issues.add(path, `must be a whole number from ${min} to ${max}, got ${describe(value)}`);
  return undefined;
}

function checkBoolean(value: unknown, path: string, fallback: boolean, issues: IssueList): boolean | undefined {
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  issues.add(path, `must be a boolean, got ${describe(value)}`);
  return undefined;
}

function checkSystem(value: unknown, issues: IssueList): string[] | undefined {
  if (value === undefined) return [];
  const items = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(items)) {
    issues.add('system', `must be a string or an array of strings, got ${describe(value)}`);
    return undefined;
  }
  items.forEach((item: unknown, i) => {
    const path = typeof value === 'string' ? 'system' : join('system', i);
    if (typeof item !== 'string' || item.trim() === '') issues.add(path, `must be a non-blank string, got ${describe(item)}`);
  });
  return items as string[];
}

/** The query is checked as recall checks it, so a bad one fails even when no layer would recall. */
function checkQuery(value: unknown, limits: Limits, issues: IssueList): string | ConversationTurn[] | undefined {
  if (value === undefined) return undefined;
  try {
    validateRecall(value, undefined, limits, 0);
  } catch (err) {
    if (!(err instanceof ZeromemError)) throw err;
    for (const issue of err.details.issues ?? []) issues.add(issue.path, issue.message);
    return undefined;
  }
  return value as string | ConversationTurn[];
}
