import { parseDuration } from './duration.ts';
import type { InputIssue } from '../public/errors.ts';
import { UnreadableInput } from './read-input.ts';
import type { JsonObject, JsonValue, TimeInput } from '../public/memory-record.ts';
import { isWellFormedText, utf8ByteLength } from './utf8.ts';

/** Collects the problems of one input, each with its path. */
export class IssueList {
  readonly items: InputIssue[] = [];
  add(path: string, message: string): void {
    this.items.push({ path, message });
  }
  get ok(): boolean {
    return this.items.length === 0;
  }
}

/** Keys that would reach an object's prototype when the data is spread or merged elsewhere. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f\uffff]/u;
/** Latest instant a JS Date can hold. */
const MAX_TIME = 8.64e15;

/** True for `{}`-style objects (not arrays, dates, class instances, or proxies of them). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Reports every key of `value` not in `known`. */
export function checkKnownKeys(value: Record<string, unknown>, known: readonly string[], path: string, issues: IssueList): void {
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key !== 'string' || !known.includes(key)) {
      const name = typeof key === 'string' ? key : key.toString();
      issues.add(join(path, name), `unknown field "${name}"; known fields are ${known.join(', ')}`);
    }
  }
}

/** Joins a path and a key with a dot. */
export function join(path: string, key: string | number): string {
  return path ? `${path}.${key}` : String(key);
}

/** A name (userId, agentId, scope, actor): a non-blank string without control characters. */
export function checkName(value: unknown, path: string, maxLength: number, issues: IssueList): string | undefined {
  if (typeof value !== 'string') {
    issues.add(path, `must be a string, got ${describe(value)}`);
    return undefined;
  }
  if (value.trim() === '') issues.add(path, 'must not be empty or blank');
  else if (value.length > maxLength) issues.add(path, `must be at most ${maxLength} characters, got ${value.length}`);
  else if (CONTROL_CHARS.test(value) || !isWellFormedText(value)) issues.add(path, 'must not contain control characters or unpaired surrogates');
  else return value;
  return undefined;
}

/** A caller-chosen record id. */
export function checkId(value: unknown, path: string, maxLength: number, issues: IssueList): string | undefined {
  if (typeof value !== 'string') {
    issues.add(path, `must be a string, got ${describe(value)}`);
    return undefined;
  }
  if (value.length === 0 || value.length > maxLength || !/^[A-Za-z0-9_.:-]+$/.test(value)) {
    issues.add(path, `must be 1 to ${maxLength} characters of letters, digits, "_", "-", "." or ":"`);
    return undefined;
  }
  return value;
}

/** A list of record ids (such as `mergedFrom`); each entry checked like an id. */
export function checkIdList(value: unknown, path: string, maxIdLength: number, issues: IssueList): string[] | undefined {
  if (!Array.isArray(value)) {
    issues.add(path, `must be an array of record ids, got ${describe(value)}`);
    return undefined;
  }
  const ids: string[] = [];
  value.forEach((id: unknown, i) => {
    const ok = checkId(id, join(path, i), maxIdLength, issues);
    if (ok !== undefined) ids.push(ok);
  });
  return ids.length === value.length ? ids : undefined;
}

/** Memory content: non-blank, well-formed text within the byte limit. */
export function checkContent(value: unknown, path: string, maxBytes: number, issues: IssueList): string | undefined {
  if (typeof value !== 'string') {
    issues.add(path, `must be a string, got ${describe(value)}`);
    return undefined;
  }
  if (value.trim() === '') issues.add(path, 'must not be empty or blank');
  else if (value.length > maxBytes || utf8ByteLength(value) > maxBytes)
    issues.add(path, `must be at most ${maxBytes} bytes of UTF-8, got ${utf8ByteLength(value)}; split it into several memories`);
  else if (!isWellFormedText(value)) issues.add(path, 'must not contain unpaired UTF-16 surrogates');
  else return value;
  return undefined;
}

/** One of a fixed set of strings. */
export function checkEnum<T extends string>(value: unknown, allowed: readonly T[], path: string, issues: IssueList): T | undefined {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  issues.add(path, `must be one of ${allowed.map((a) => `"${a}"`).join(', ')}, got ${describe(value)}`);
  return undefined;
}

/** A number in [0, 1]. */
export function checkUnitInterval(value: unknown, path: string, issues: IssueList): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1) return value + 0; // + 0 turns -0 into 0
  issues.add(path, `must be a number from 0 to 1, got ${describe(value)}`);
  return undefined;
}

/** Tags: distinct non-blank strings; duplicates are folded, order kept. */
export function checkTags(value: unknown, path: string, maxTags: number, maxLength: number, issues: IssueList): string[] | undefined {
  if (!Array.isArray(value)) {
    issues.add(path, `must be an array of strings, got ${describe(value)}`);
    return undefined;
  }
  if (value.length > maxTags * 4) {
    issues.add(path, `must have at most ${maxTags} tags, got ${value.length}`);
    return undefined;
  }
  const tags: string[] = [];
  const before = issues.items.length;
  for (let i = 0; i < value.length; i++) {
    const tag = value[i];
    const tagPath = join(path, i);
    if (typeof tag !== 'string') issues.add(tagPath, `must be a string, got ${describe(tag)}`);
    else if (tag.trim() === '' || tag !== tag.trim()) issues.add(tagPath, 'must be non-blank without surrounding spaces');
    else if (tag.length > maxLength) issues.add(tagPath, `must be at most ${maxLength} characters`);
    else if (CONTROL_CHARS.test(tag) || !isWellFormedText(tag)) issues.add(tagPath, 'must not contain control characters');
    else if (!tags.includes(tag)) tags.push(tag);
  }
  if (tags.length > maxTags) issues.add(path, `must have at most ${maxTags} distinct tags, got ${tags.length}`);
  return issues.items.length === before ? tags : undefined;
}

/** A point in time as epoch ms: a finite number, a valid Date or an ISO 8601 string (UTC unless it names an offset). */
export function checkTime(value: unknown, path: string, issues: IssueList): number | undefined {
  let time: number | undefined;
  if (typeof value === 'number' && Number.isFinite(value)) time = Math.trunc(value) + 0; // + 0 turns -0 into 0
  else if (value instanceof Date) time = value.getTime();
  else if (typeof value === 'string') {
    const match = /^(\d{4}-\d{2}-\d{2})(?:[T ]([0-9:.]+)(Z|[+-]\d{2}:?\d{2})?)?$/.exec(value);
    // A date-time without an offset is read as UTC, never as this machine's local time.
    if (match) time = Date.parse(match[2] === undefined ? match[1]! : `${match[1]}T${match[2]}${match[3] ?? 'Z'}`);
  }
  if (time === undefined || Number.isNaN(time) || time < 0 || time > MAX_TIME) {
    issues.add(path, `must be epoch milliseconds (0 or more), a valid Date, or an ISO 8601 string, got ${describe(value)}`);
    return undefined;
  }
  return time;
}

/**
 * The expiry a `ttl` gives when counted from `anchor`: a positive duration (ms or a string
 * like `"2d"`) whose end is a time {@link checkTime} accepts, so that every path that
 * reads stored times back (export/import, replication) accepts the expiry too.
 */
export function checkTtl(value: unknown, anchor: number, path: string, issues: IssueList): number | undefined {
  const ttl = parseDuration(value);
  if (ttl === undefined) {
    issues.add(path, `must be a positive duration in milliseconds or like "30m", "2d", "1h30m", got ${describe(value)}`);
    return undefined;
  }
  if (anchor + ttl > MAX_TIME) {
    issues.add(path, `must end by ${new Date(MAX_TIME).toISOString()} (the latest time a Date holds), got ${describe(value)}; leave the expiry out for a memory that never expires`);
    return undefined;
  }
  return anchor + ttl;
}

/**
 * Metadata: a plain JSON object. Rejects what JSON cannot carry faithfully (undefined,
 * NaN, Infinity, functions, symbols, getters, class instances, cycles) and keys that reach
 * prototypes. Returns a fresh copy so later changes by the caller do not leak in.
 */
export function checkMetadata(value: unknown, path: string, maxBytes: number, maxDepth: number, issues: IssueList): JsonObject | undefined {
  if (!isPlainObject(value)) {
    issues.add(path, `must be a plain JSON object, got ${describe(value)}`);
    return undefined;
  }
  const before = issues.items.length;
  const budget = { nodes: maxBytes };
  const copy = copyJson(value, path, 1, maxDepth, new Set(), budget, issues);
  if (issues.items.length > before) return undefined;
  if (budget.nodes < 0) {
    issues.add(path, `must serialize to at most ${maxBytes} bytes of JSON`);
    return undefined;
  }
  const bytes = utf8ByteLength(JSON.stringify(copy));
  if (bytes > maxBytes) {
    issues.add(path, `must serialize to at most ${maxBytes} bytes of JSON, got ${bytes}`);
    return undefined;
  }
  return copy as JsonObject;
}

function copyJson(
  value: unknown,
  path: string,
  depth: number,
  maxDepth: number,
  ancestors: Set<object>,
  budget: { nodes: number },
  issues: IssueList,
): JsonValue | undefined {
  // Every node costs at least one byte of JSON: this bounds the walk for huge inputs.
  if (--budget.nodes < 0) return undefined;
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    // -0 becomes 0: JSON (and so export and sync) cannot carry the sign of zero.
    if (Number.isFinite(value)) return value + 0;
    issues.add(path, `must be a finite number, got ${describe(value)}`);
    return undefined;
  }
  if (typeof value === 'string') {
    if (isWellFormedText(value)) return value;
    issues.add(path, 'must not contain unpaired UTF-16 surrogates');
    return undefined;
  }
  if (typeof value !== 'object') {
    issues.add(path, `must be JSON (null, boolean, number, string, array or plain object), got ${describe(value)}`);
    return undefined;
  }
  if (ancestors.has(value)) {
    issues.add(path, 'must not contain a cycle');
    return undefined;
  }
  if (depth > maxDepth) {
    issues.add(path, `must be nested at most ${maxDepth} levels deep`);
    return undefined;
  }
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      const out: JsonValue[] = [];
      for (let i = 0; i < value.length && budget.nodes >= 0; i++) {
        // Read the descriptor, not value[i]: an accessor must not run (it may throw or change).
        const descriptor = Object.getOwnPropertyDescriptor(value, i);
        if (!descriptor) issues.add(join(path, i), 'must not be a hole in the array');
        else if (!('value' in descriptor)) issues.add(join(path, i), 'must be a data property, not a getter or setter');
        else {
          const item = copyJson(descriptor.value, join(path, i), depth + 1, maxDepth, ancestors, budget, issues);
          if (item !== undefined) out.push(item);
        }
      }
      return out;
    }
    if (!isPlainObject(value)) {
      issues.add(path, `must be JSON (null, boolean, number, string, array or plain object), got ${describe(value)}`);
      return undefined;
    }
    const out: JsonObject = {};
    for (const key of Reflect.ownKeys(value)) {
      if (budget.nodes < 0) break;
      if (typeof key !== 'string') {
        issues.add(path, 'must not have symbol keys');
        continue;
      }
      const keyPath = join(path, key);
      if (FORBIDDEN_KEYS.has(key)) {
        issues.add(keyPath, `key "${key}" is not allowed (it could pollute object prototypes)`);
        continue;
      }
      if (!isWellFormedText(key)) {
        issues.add(keyPath, 'key must not contain unpaired UTF-16 surrogates');
        continue;
      }
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (!descriptor || !('value' in descriptor)) {
        issues.add(keyPath, 'must be a data property, not a getter or setter');
        continue;
      }
      const item = copyJson(descriptor.value, keyPath, depth + 1, maxDepth, ancestors, budget, issues);
      if (item !== undefined) out[key] = item;
    }
    return out;
  } finally {
    ancestors.delete(value);
  }
}

/** A short description of a value for error messages; never echoes long content. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof UnreadableInput) return value.reason;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'an invalid Date' : 'a Date';
  switch (typeof value) {
    case 'string':
      return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value) + (typeof value === 'bigint' ? 'n' : '');
    case 'undefined':
      return 'undefined';
    case 'object':
      return 'an object';
    default:
      return `a ${typeof value}`;
  }
}
