import { IssueList, checkEnum, checkIdList, checkKnownKeys, checkName, describe, isPlainObject, join } from '../model/checks.ts';
import type { Limits } from '../public/limits.ts';
import { checkNamespace, namespaceKey } from '../model/namespace.ts';
import { TIERS } from '../model/types.ts';
import type { MemoryRecord } from '../public/memory-record.ts';
import { validateRemember } from '../model/validate-remember.ts';
import { toUnitVector } from '../embed/embedder.ts';
import { decodeVector } from './jsonl-format.ts';
import { EXPORT_FORMAT, EXPORT_VERSION, type ExportHeader } from '../public/export-format.ts';

const RECORD_KEYS = [
  'id', 'namespace', 'namespaceKey', 'content', 'source', 'layer', 'tags', 'metadata', 'importance', 'createdAt',
  'updatedAt', 'expiresAt', 'accessCount', 'lastAccessedAt', 'contentHash', 'version', 'tier', 'mergedFrom',
] as const;
/**
 * Keyed facts' fields, absent from exports written before them (an unkeyed memory). The
 * derived `validUntil` and `closedBy` are read back but derived again on import from the
 * versions the store then holds (write/settle-keys.ts).
 */
const FACT_KEYS = ['key', 'validFrom', 'validUntil', 'closedBy', 'statedUntil'] as const;

const OPENS_OBJECT = /^\s*\{/;
const CLOSES_OBJECT = /\}\s*$/;

/** A record line that passed every check but the content hash (async, done by the caller). */
export interface ParsedLine {
  record: MemoryRecord;
  /** `undefined`: the line carries no vector; `null`: the model could not embed the text. */
  vector: Float32Array | null | undefined;
}

/**
 * The line's JSON value. A line that cannot hold an object (it does not start with `{` and
 * end with `}`) is told apart without JSON.parse: its exception costs 2-20 µs, which for a
 * file of a million one-byte garbage lines was most of the import.
 */
function parseJson(text: string, issues: IssueList): unknown {
  if (!(OPENS_OBJECT.test(text) && CLOSES_OBJECT.test(text))) {
    issues.add('', 'is not valid JSON (each line is one JSON object, { ... })');
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    issues.add('', `is not valid JSON (${(err as Error).message})`);
    return undefined;
  }
}

/** Validates the header line; `undefined` with issues when it is not a supported zeromem export header. */
export function parseHeader(text: string, limits: Limits, issues: IssueList): ExportHeader | undefined {
  const value = parseJson(text, issues);
  if (!issues.ok) return undefined;
  if (!isPlainObject(value) || value.format !== EXPORT_FORMAT) {
    issues.add('format', `the first line must be a zeromem export header ({ "format": "${EXPORT_FORMAT}", "version": ${EXPORT_VERSION}, ... })`);
    return undefined;
  }
  checkKnownKeys(value, ['format', 'version', 'exportedAt', 'scope', 'records', 'vectors'], '', issues);
  if (value.version !== EXPORT_VERSION) issues.add('version', `must be ${EXPORT_VERSION} (this zeromem reads version ${EXPORT_VERSION}), got ${describe(value.version)}`);
  if (!isNonNegativeInteger(value.exportedAt)) issues.add('exportedAt', 'must be epoch milliseconds');
  if (!isNonNegativeInteger(value.records)) issues.add('records', 'must be the number of record lines');
  const scope = value.scope;
  if (!isPlainObject(scope) || Object.keys(scope).length !== 1) issues.add('scope', 'must be { namespace } or { userId }');
  else if (scope.namespace !== undefined) checkNamespace(scope.namespace, 'scope.namespace', limits.maxNameLength, issues);
  else checkName(scope.userId, 'scope.userId', limits.maxNameLength, issues);
  const vectors = value.vectors;
  if (vectors !== null) {
    if (!isPlainObject(vectors)) issues.add('vectors', 'must be { model, dimension } or null');
    else {
      checkKnownKeys(vectors, ['model', 'dimension'], 'vectors', issues);
      if (typeof vectors.model !== 'string' || vectors.model === '') issues.add('vectors.model', 'must be the model id');
      if (!(isNonNegativeInteger(vectors.dimension) && vectors.dimension > 0)) issues.add('vectors.dimension', 'must be a positive whole number');
    }
  }
  return issues.ok ? (value as unknown as ExportHeader) : undefined;
}

/** Validates one record line against the limits and the header; `undefined` with issues when it is bad. */
export function parseRecordLine(text: string, header: ExportHeader, limits: Limits, issues: IssueList): ParsedLine | undefined {
  const value = parseJson(text, issues);
  if (!issues.ok) return undefined;
  if (!isPlainObject(value) || !isPlainObject(value.record)) {
    issues.add('record', 'must be an object: each line after the header is { "record": {...}, "vector"?: ... }');
    return undefined;
  }
  checkKnownKeys(value, ['record', 'vector'], '', issues);
  const raw = value.record;
  checkKnownKeys(raw, [...RECORD_KEYS, ...FACT_KEYS], 'record', issues);
  for (const key of RECORD_KEYS) if (!(key in raw)) issues.add(join('record', key), 'is missing');
  if (!issues.ok) return undefined;

  const fact = raw.key === undefined || raw.key === null ? {} : { key: raw.key, validFrom: raw.validFrom ?? undefined, validUntil: raw.statedUntil ?? undefined };
  const checked = validateRemember(
    { namespace: raw.namespace, content: raw.content, id: raw.id, source: raw.source, layer: raw.layer, tags: raw.tags, metadata: raw.metadata, importance: raw.importance, createdAt: raw.createdAt, expiresAt: raw.expiresAt ?? undefined, ...fact },
    limits,
    0, // expiry is judged by the importer (expired records are skipped, not bad)
  );
  if (!checked.ok) for (const issue of checked.issues) issues.add(join('record', issue.path), issue.message);
  for (const key of ['createdAt', 'updatedAt'] as const) if (!isNonNegativeInteger(raw[key])) issues.add(join('record', key), 'must be epoch milliseconds (a whole number)');
  for (const key of ['expiresAt', 'lastAccessedAt'] as const) {
    if (raw[key] !== null && !isNonNegativeInteger(raw[key])) issues.add(join('record', key), 'must be epoch milliseconds or null');
  }
  if (!isNonNegativeInteger(raw.accessCount)) issues.add('record.accessCount', 'must be a whole number, 0 or more');
  if (!(isNonNegativeInteger(raw.version) && raw.version >= 1)) issues.add('record.version', 'must be a whole number, 1 or more');
  if (typeof raw.contentHash !== 'string' || !/^[0-9a-f]{64}$/.test(raw.contentHash)) issues.add('record.contentHash', 'must be a SHA-256 in lower-case hex');
  const tier = checkEnum(raw.tier, TIERS, 'record.tier', issues);
  const mergedFrom = checkIdList(raw.mergedFrom, 'record.mergedFrom', limits.maxIdLength, issues) ?? [];
  if (!checked.ok || !issues.ok) return undefined;
  const prepared = checked.value;
  if (prepared.id === undefined) issues.add('record.id', 'is missing');
  if (raw.namespaceKey !== prepared.namespaceKey) issues.add('record.namespaceKey', `must be the key of record.namespace ("${prepared.namespaceKey}")`);
  const scope = header.scope;
  if ('namespace' in scope ? namespaceKey(scope.namespace) !== prepared.namespaceKey : scope.userId !== prepared.namespace.userId) {
    issues.add('record.namespace', 'is outside the scope the header names');
  }
  const vector = checkVector(value, header, issues);
  if (!issues.ok) return undefined;
  return {
    record: {
      ...prepared,
      id: prepared.id!,
      updatedAt: raw.updatedAt as number,
      accessCount: raw.accessCount as number,
      lastAccessedAt: raw.lastAccessedAt as number | null,
      contentHash: raw.contentHash as string,
      version: raw.version as number,
      tier: tier!,
      mergedFrom,
      validUntil: prepared.statedUntil,
      closedBy: null,
    },
    vector,
  };
}

function checkVector(line: Record<string, unknown>, header: ExportHeader, issues: IssueList): Float32Array | null | undefined {
  if (!('vector' in line)) return undefined;
  if (!header.vectors) {
    issues.add('vector', 'is given but the header names no vector model');
    return undefined;
  }
  if (line.vector === null) return null;
  const vector = typeof line.vector === 'string' ? decodeVector(line.vector, header.vectors.dimension) : undefined;
  if (!vector) {
    issues.add('vector', `must be base64 of ${header.vectors.dimension} little-endian float32 values, or null`);
    return undefined;
  }
  return asUnitVector(vector, issues);
}

/** How far from 1 a vector's squared length may be and still count as unit length (float32 rounding of an exported unit vector). */
const UNIT_TOLERANCE = 1e-5;

/**
 * Recall takes the dot product of stored vectors as their cosine, so an imported vector
 * must have unit length: one that has (as every export does) is kept bit for bit, any
 * other is scaled to it, and a zero vector, which has no direction, is a bad line.
 */
function asUnitVector(vector: Float32Array, issues: IssueList): Float32Array | undefined {
  let norm = 0;
  for (const x of vector) norm += x * x;
  if (Math.abs(norm - 1) <= UNIT_TOLERANCE) return vector;
  const unit = toUnitVector(vector, vector.length);
  if (!unit) issues.add('vector', 'has no direction (zero length or too large to scale): export it with null instead');
  return unit ?? undefined;
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
