import { canonicalJson } from './canonical-json.ts';
import { invalidInput } from './errors.ts';
import {
  IssueList,
  checkEnum,
  checkKnownKeys,
  checkMetadata,
  checkTags,
  checkTime,
  describe,
  isPlainObject,
  join,
} from './checks.ts';
import type { Limits } from '../public/limits.ts';
import { FACT_KEY_RULE, isFactKey } from './validity.ts';
import { checkMetadataQuery, type MetadataPredicate } from './metadata-query.ts';
import { LAYERS, SOURCES } from './types.ts';
import type { Layer, Source } from '../public/memory-record.ts';

const FILTER_FIELDS = ['tags', 'metadata', 'where', 'source', 'layer', 'createdAt', 'updatedAt', 'key'] as const;
/** The fields of {@link ValidityOptions}, which reads take and forgets do not. */
export const VALIDITY_FIELDS = ['asOf', 'includeClosed'] as const;
const COUNT_FIELDS = [...FILTER_FIELDS, ...VALIDITY_FIELDS] as const;
const LIST_FIELDS = [...COUNT_FIELDS, 'orderBy', 'order', 'limit', 'cursor'] as const;

/** A validated {@link RecordFilter}. Times are epoch ms; `to` is exclusive. */
export interface PreparedFilter {
  tagsAny?: string[];
  tagsAll?: string[];
  /** Metadata key and canonical JSON of the value it must equal. */
  metadata?: Array<[string, string]>;
  /** The compiled `where` query on metadata. */
  where?: MetadataPredicate;
  sources?: ReadonlySet<Source>;
  layers?: ReadonlySet<Layer>;
  created?: { from: number; to: number };
  updated?: { from: number; to: number };
  /** Only versions of this fact key. */
  key?: string;
  /** Only keyed facts valid at this time (unkeyed memories always pass); absent: every version. */
  validAt?: number;
}

/** Validated {@link ListOptions}. */
export interface PreparedList extends PreparedFilter {
  orderBy: 'createdAt' | 'updatedAt';
  order: 'asc' | 'desc';
  limit: number;
  /** Position after which the page starts: `<16-digit time>\u0000<id>`. */
  after?: string;
  /** Fingerprint of the list, carried by its cursors. */
  listKey: string;
}

/** Most items one `list` page returns. */
export const MAX_PAGE_SIZE = 1000;

/** Validates a filter; throws INVALID_INPUT listing every problem. */
export function validateFilter(value: unknown, limits: Limits, what = 'filter'): PreparedFilter {
  const issues = new IssueList();
  const filter = checkFilter(value, FILTER_FIELDS, limits, issues);
  if (!issues.ok) throw invalidInput(what, issues.items);
  return filter;
}

/**
 * Validates a filter of a read (`count`): with `asOf` / `includeClosed`, which say at
 * what time keyed facts must hold (default `now`).
 */
export function validateReadFilter(value: unknown, limits: Limits, now: number, what = 'filter'): PreparedFilter {
  const issues = new IssueList();
  const filter = checkFilter(value, COUNT_FIELDS, limits, issues);
  const validAt = checkValidity(value, now, '', issues);
  if (!issues.ok) throw invalidInput(what, issues.items);
  return validAt === undefined ? filter : { ...filter, validAt };
}

/**
 * Reads `asOf` and `includeClosed` of a read's options: the time keyed facts must hold
 * at (`asOf`, default `now`), or undefined for every version (`includeClosed: true`).
 */
export function checkValidity(value: unknown, now: number, path: string, issues: IssueList): number | undefined {
  if (!isPlainObject(value)) return now;
  const { asOf, includeClosed } = value;
  if (includeClosed !== undefined && typeof includeClosed !== 'boolean') issues.add(join(path, 'includeClosed'), `must be a boolean, got ${describe(includeClosed)}`);
  if (includeClosed === true && asOf !== undefined) {
    issues.add(join(path, 'includeClosed'), 'give asOf (the facts that held then) or includeClosed (every version), not both');
    return undefined;
  }
  if (includeClosed === true) return undefined;
  return asOf === undefined ? now : checkTime(asOf, join(path, 'asOf'), issues);
}

/**
 * Validates list options; throws INVALID_INPUT listing every problem. `scope` identifies
 * the list (namespace and filter): a cursor only continues the list it came from.
 */
export function validateListOptions(value: unknown, limits: Limits, scope: string, now: number): PreparedList {
  const issues = new IssueList();
  const filter = checkFilter(value, LIST_FIELDS, limits, issues);
  const validAt = checkValidity(value, now, '', issues);
  if (validAt !== undefined) filter.validAt = validAt;
  const options = (isPlainObject(value) ? value : {}) as Record<string, unknown>;
  const orderBy = options.orderBy === undefined ? 'createdAt' : checkEnum(options.orderBy, ['createdAt', 'updatedAt'] as const, 'orderBy', issues);
  const order = options.order === undefined ? 'desc' : checkEnum(options.order, ['asc', 'desc'] as const, 'order', issues);
  let limit = 50;
  if (options.limit !== undefined) {
    if (typeof options.limit === 'number' && Number.isInteger(options.limit) && options.limit >= 1 && options.limit <= MAX_PAGE_SIZE) limit = options.limit;
    else issues.add('limit', `must be a whole number from 1 to ${MAX_PAGE_SIZE}, got ${describe(options.limit)}`);
  }
  let after: string | undefined;
  // Fingerprint only validated options (junk may not even serialize); a bad list has no cursor check.
  const listKey = issues.ok ? listScope(scope, options) : '';
  if (options.cursor !== undefined && orderBy && order && issues.ok) {
    after = decodeCursor(options.cursor, orderBy, order, listKey);
    if (after === undefined) issues.add('cursor', 'is not a cursor from a previous page of this list (same namespace, filters, orderBy and order)');
  }
  if (!issues.ok) throw invalidInput('list options', issues.items);
  return { ...filter, orderBy: orderBy!, order: order!, limit, listKey, ...(after === undefined ? {} : { after }) };
}

/** A short fingerprint of a list: namespace and every option but the page position and size. */
function listScope(scope: string, options: Record<string, unknown>): string {
  const { cursor: _cursor, limit: _limit, ...rest } = options;
  const text = `${scope}\u0000${canonicalJson(rest)}`;
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    h1 = Math.imul(h1 ^ text.charCodeAt(i), 16777619);
    h2 = Math.imul(h2 ^ text.charCodeAt(i), 2246822519);
  }
  return (h1 >>> 0).toString(36) + (h2 >>> 0).toString(36);
}

/** Makes the opaque cursor that continues the list `listKey` after `position`. */
export function encodeCursor(position: string, orderBy: string, order: string, listKey: string): string {
  // Positions are ASCII (digits, NUL, id characters), so plain base64 of the JSON is safe.
  return btoa(JSON.stringify([2, orderBy, order, position, listKey]));
}

function decodeCursor(cursor: unknown, orderBy: string, order: string, listKey: string): string | undefined {
  if (typeof cursor !== 'string' || cursor.length > 2048) return undefined;
  try {
    const parsed: unknown = JSON.parse(atob(cursor));
    if (!Array.isArray(parsed) || parsed.length !== 5) return undefined;
    const [version, by, dir, position, key] = parsed;
    if (version !== 2 || by !== orderBy || dir !== order || key !== listKey || typeof position !== 'string') return undefined;
    return /^\d{16}\u0000[A-Za-z0-9_.:-]+$/.test(position) ? position : undefined;
  } catch {
    return undefined; // not base64 or not JSON: the caller reports an invalid cursor
  }
}

function checkFilter(value: unknown, known: readonly string[], limits: Limits, issues: IssueList): PreparedFilter {
  if (value === undefined) return {};
  if (!isPlainObject(value)) {
    issues.add('', `must be an object, got ${describe(value)}`);
    return {};
  }
  checkKnownKeys(value, known, '', issues);
  const filter: PreparedFilter = {};
  if (value.tags !== undefined) {
    if (!isPlainObject(value.tags)) issues.add('tags', 'must be an object like { any: [...] } or { all: [...] }');
    else {
      checkKnownKeys(value.tags, ['any', 'all'], 'tags', issues);
      for (const mode of ['any', 'all'] as const) {
        const list = value.tags[mode];
        if (list === undefined) continue;
        const tags = checkTags(list, join('tags', mode), limits.maxTags, limits.maxTagLength, issues);
        if (tags && tags.length === 0) issues.add(join('tags', mode), 'must name at least one tag (leave it out to not filter)');
        else if (tags) filter[mode === 'any' ? 'tagsAny' : 'tagsAll'] = tags;
      }
    }
  }
  if (value.metadata !== undefined) {
    const metadata = checkMetadata(value.metadata, 'metadata', limits.maxMetadataBytes, limits.maxMetadataDepth, issues);
    if (metadata) filter.metadata = Object.entries(metadata).map(([key, v]) => [key, canonicalJson(v)]);
  }
  if (value.where !== undefined) {
    const where = checkMetadataQuery(value.where, 'where', limits, issues);
    if (where) filter.where = where;
  }
  if (value.source !== undefined) {
    // Array.from turns holes into undefined, so a sparse list is refused rather than skipped.
    const sources = Array.isArray(value.source) ? Array.from(value.source as unknown[]) : [value.source];
    if (sources.length === 0) issues.add('source', 'must name at least one source');
    filter.sources = new Set(sources.map((s, i) => checkEnum(s, SOURCES, Array.isArray(value.source) ? join('source', i) : 'source', issues)!));
  }
  if (value.layer !== undefined) {
    const layers = Array.isArray(value.layer) ? Array.from(value.layer as unknown[]) : [value.layer];
    if (layers.length === 0) issues.add('layer', 'must name at least one layer');
    filter.layers = new Set(layers.map((l, i) => checkEnum(l, LAYERS, Array.isArray(value.layer) ? join('layer', i) : 'layer', issues)!));
  }
  for (const field of ['createdAt', 'updatedAt'] as const) {
    const range = value[field];
    if (range === undefined) continue;
    if (!isPlainObject(range)) {
      issues.add(field, 'must be an object like { from?, to? }');
      continue;
    }
    checkKnownKeys(range, ['from', 'to'], field, issues);
    const from = range.from === undefined ? 0 : checkTime(range.from, join(field, 'from'), issues);
    const to = range.to === undefined ? Number.POSITIVE_INFINITY : checkTime(range.to, join(field, 'to'), issues);
    if (from !== undefined && to !== undefined) filter[field === 'createdAt' ? 'created' : 'updated'] = { from, to };
  }
  if (value.key !== undefined) {
    if (isFactKey(value.key)) filter.key = value.key;
    else issues.add('key', `${FACT_KEY_RULE}, got ${describe(value.key)}`);
  }
  return filter;
}
