import { canonicalJson } from './canonical-json.ts';
import { IssueList, checkKnownKeys, checkMetadata, describe, isPlainObject, join } from './checks.ts';
import type { Limits } from '../public/limits.ts';
import type { JsonObject, JsonValue } from '../public/memory-record.ts';

/** A compiled query: true when the metadata matches. */
export type MetadataPredicate = (metadata: JsonObject) => boolean;

/** Most conditions (leaves and `and`/`or`/`not` nodes) in one query. */
export const MAX_QUERY_NODES = 256;
/** Deepest nesting of `and`/`or`/`not`. */
export const MAX_QUERY_DEPTH = 16;
/** Most values in one `in` / `nin` list. */
export const MAX_IN_VALUES = 1000;

const OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'contains', 'exists'] as const;
type Operator = (typeof OPERATORS)[number];
const MISSING = Symbol('missing');

/** Validates a metadata query into `issues` (under `path`) and compiles it; `undefined` when invalid. */
export function checkMetadataQuery(value: unknown, path: string, limits: Limits, issues: IssueList): MetadataPredicate | undefined {
  const before = issues.items.length;
  const budget = { nodes: MAX_QUERY_NODES };
  const predicate = compile(value, path, 1, limits, budget, issues);
  if (budget.nodes < 0) issues.add(path, `must hold at most ${MAX_QUERY_NODES} conditions`);
  return issues.items.length > before ? undefined : predicate;
}

function compile(value: unknown, path: string, depth: number, limits: Limits, budget: { nodes: number }, issues: IssueList): MetadataPredicate | undefined {
  if (--budget.nodes < 0) return undefined;
  if (!isPlainObject(value)) {
    issues.add(path, `must be an object: { key, <operator> }, { and: [...] }, { or: [...] } or { not: ... }, got ${describe(value)}`);
    return undefined;
  }
  const keys = Object.keys(value);
  const combinator = keys.length === 1 && (keys[0] === 'and' || keys[0] === 'or' || keys[0] === 'not') ? keys[0] : undefined;
  if (combinator) {
    if (depth > MAX_QUERY_DEPTH) {
      issues.add(path, `nests and/or/not deeper than ${MAX_QUERY_DEPTH}`);
      return undefined;
    }
    const inner = value[combinator];
    const innerPath = join(path, combinator);
    if (combinator === 'not') {
      const predicate = compile(inner, innerPath, depth + 1, limits, budget, issues);
      return predicate && ((metadata) => !predicate(metadata));
    }
    if (!Array.isArray(inner) || inner.length === 0) {
      issues.add(innerPath, `must be a non-empty array of conditions, got ${describe(inner)}`);
      return undefined;
    }
    const parts = Array.from(inner as unknown[], (part, i) => compile(part, join(innerPath, i), depth + 1, limits, budget, issues));
    if (parts.some((part) => part === undefined)) return undefined;
    const predicates = parts as MetadataPredicate[];
    return combinator === 'and' ? (m) => predicates.every((p) => p(m)) : (m) => predicates.some((p) => p(m));
  }
  return compileCondition(value, path, limits, issues);
}

function compileCondition(value: Record<string, unknown>, path: string, limits: Limits, issues: IssueList): MetadataPredicate | undefined {
  const before = issues.items.length;
  checkKnownKeys(value, ['key', ...OPERATORS], path, issues);
  const keyPath = checkKeyPath(value.key, join(path, 'key'), limits, issues);
  const tests: Array<(found: JsonValue | typeof MISSING) => boolean> = [];
  for (const op of OPERATORS) {
    if (!Object.hasOwn(value, op)) continue;
    const test = compileOperator(op, value[op], join(path, op), limits, issues);
    if (test) tests.push(test);
  }
  if (tests.length === 0 && issues.items.length === before) {
    issues.add(path, `must have at least one operator: ${OPERATORS.join(', ')}`);
  }
  if (issues.items.length > before || !keyPath) return undefined;
  return (metadata) => {
    const found = lookUp(metadata, keyPath);
    return tests.every((test) => test(found));
  };
}

function checkKeyPath(value: unknown, path: string, limits: Limits, issues: IssueList): string[] | undefined {
  const parts = typeof value === 'string' ? [value] : Array.isArray(value) ? Array.from(value as unknown[]) : undefined;
  if (!parts || parts.length === 0 || parts.length > limits.maxMetadataDepth) {
    issues.add(path, `must be a metadata key or a path of 1 to ${limits.maxMetadataDepth} keys, got ${describe(value)}`);
    return undefined;
  }
  if (parts.some((part) => typeof part !== 'string' || part.length === 0 || part.length > 256)) {
    issues.add(path, 'must hold keys that are non-empty strings of at most 256 characters');
    return undefined;
  }
  return parts as string[];
}

function compileOperator(op: Operator, operand: unknown, path: string, limits: Limits, issues: IssueList): ((found: JsonValue | typeof MISSING) => boolean) | undefined {
  switch (op) {
    case 'exists':
      if (typeof operand !== 'boolean') return void issues.add(path, `must be true or false, got ${describe(operand)}`);
      return (found) => (found !== MISSING) === operand;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      if (!(typeof operand === 'string' || (typeof operand === 'number' && Number.isFinite(operand)))) {
        return void issues.add(path, `must be a finite number or a string, got ${describe(operand)}`);
      }
      const compare = COMPARE[op];
      return (found) => typeof found === typeof operand && compare(found as number | string, operand);
    }
    case 'in':
    case 'nin': {
      if (!Array.isArray(operand) || operand.length === 0 || operand.length > MAX_IN_VALUES) {
        return void issues.add(path, `must be an array of 1 to ${MAX_IN_VALUES} values, got ${describe(operand)}`);
      }
      const values = checkJson(operand, path, limits, issues) as JsonValue[] | undefined;
      if (!values) return undefined;
      const wanted = new Set(values.map(canonicalJson));
      return op === 'in' ? (found) => found !== MISSING && wanted.has(canonicalJson(found)) : (found) => found === MISSING || !wanted.has(canonicalJson(found));
    }
    case 'contains': {
      const needle = checkJson(operand, path, limits, issues);
      if (needle === undefined) return undefined;
      const canonical = canonicalJson(needle);
      return (found) =>
        (typeof found === 'string' && typeof needle === 'string' && found.includes(needle)) ||
        (Array.isArray(found) && found.some((element) => canonicalJson(element) === canonical));
    }
    case 'eq':
    case 'ne': {
      const expected = checkJson(operand, path, limits, issues);
      if (expected === undefined) return undefined;
      const canonical = canonicalJson(expected);
      return op === 'eq' ? (found) => found !== MISSING && canonicalJson(found) === canonical : (found) => found === MISSING || canonicalJson(found) !== canonical;
    }
  }
}

const COMPARE: Record<'gt' | 'gte' | 'lt' | 'lte', (a: number | string, b: number | string) => boolean> = {
  gt: (a, b) => a > b,
  gte: (a, b) => a >= b,
  lt: (a, b) => a < b,
  lte: (a, b) => a <= b,
};

/** An operand is checked as metadata is (finite numbers, well-formed strings, no cycles, bounded size). */
function checkJson(value: unknown, path: string, limits: Limits, issues: IssueList): JsonValue | undefined {
  const local = new IssueList();
  const wrapped = checkMetadata({ value }, '', limits.maxMetadataBytes, limits.maxMetadataDepth + 1, local);
  for (const issue of local.items) issues.add(issue.path.replace(/^value/, path) || path, issue.message);
  return wrapped?.value;
}

function lookUp(metadata: JsonObject, keyPath: string[]): JsonValue | typeof MISSING {
  let current: JsonValue = metadata;
  for (const key of keyPath) {
    if (!isPlainObject(current) || !Object.hasOwn(current, key)) return MISSING;
    current = (current as JsonObject)[key]!;
  }
  return current;
}
