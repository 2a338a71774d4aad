import type { InputIssue } from '../public/errors.ts';
import {
  IssueList,
  checkContent,
  checkEnum,
  checkId,
  checkKnownKeys,
  checkMetadata,
  checkTags,
  checkTime,
  checkTtl,
  checkUnitInterval,
  describe,
  isPlainObject,
} from './checks.ts';
import type { Limits } from '../public/limits.ts';
import { checkNamespace } from './namespace.ts';
import { FACT_KEY_RULE, isFactKey } from './validity.ts';
import { LAYERS, SOURCES } from './types.ts';
import type { JsonObject, Layer, Namespace, Source } from '../public/memory-record.ts';

const REMEMBER_FIELDS = [
  'namespace',
  'content',
  'id',
  'source',
  'layer',
  'tags',
  'metadata',
  'importance',
  'createdAt',
  'expiresAt',
  'ttl',
  'key',
  'validFrom',
  'validUntil',
] as const;

/** A `remember` input after validation, with defaults applied. */
export interface PreparedRemember {
  namespace: Namespace;
  namespaceKey: string;
  id: string | undefined;
  content: string;
  source: Source;
  layer: Layer;
  tags: string[];
  metadata: JsonObject;
  importance: number;
  createdAt: number;
  expiresAt: number | null;
  /** The fact key, or null for an unkeyed memory. */
  key: string | null;
  /** Keyed facts: from when it holds (default createdAt); null for unkeyed. */
  validFrom: number | null;
  /** Keyed facts: the end the writer stated, or null. */
  statedUntil: number | null;
}

/** The outcome of validating one input. */
export type Checked<T> =
  | { ok: true; value: T }
  | { ok: false; code: 'INVALID_INPUT' | 'NAMESPACE_REQUIRED'; issues: InputIssue[] };

/** Validates a `remember` input against the limits; `now` anchors defaults and `ttl`. */
export function validateRemember(input: unknown, limits: Limits, now: number): Checked<PreparedRemember> {
  const issues = new IssueList();
  if (!isPlainObject(input)) {
    issues.add('', `must be an object like { namespace, content }, got ${describe(input)}`);
    return { ok: false, code: 'INVALID_INPUT', issues: issues.items };
  }
  checkKnownKeys(input, REMEMBER_FIELDS, '', issues);
  const ns = checkNamespace(input.namespace, 'namespace', limits.maxNameLength, issues);
  // `{ userID }` is a typo (INVALID_INPUT), `{ agentId }` alone a missing user (NAMESPACE_REQUIRED).
  const missingNamespace =
    input.namespace === undefined ||
    input.namespace === null ||
    (isPlainObject(input.namespace) && input.namespace.userId === undefined && Object.keys(input.namespace).every((key) => key === 'agentId' || key === 'scope'));
  if (input.namespace === undefined || input.namespace === null) issues.add('namespace', 'is required: pass { userId } (and agentId or scope)');
  const content = checkContent(input.content, 'content', limits.maxContentBytes, issues);
  const id = input.id === undefined ? undefined : checkId(input.id, 'id', limits.maxIdLength, issues);
  const source = input.source === undefined ? 'user' : checkEnum(input.source, SOURCES, 'source', issues);
  const layer = input.layer === undefined ? 'long_term' : checkEnum(input.layer, LAYERS, 'layer', issues);
  const tags = input.tags === undefined ? [] : checkTags(input.tags, 'tags', limits.maxTags, limits.maxTagLength, issues);
  const metadata =
    input.metadata === undefined ? {} : checkMetadata(input.metadata, 'metadata', limits.maxMetadataBytes, limits.maxMetadataDepth, issues);
  const importance = input.importance === undefined ? 0.5 : checkUnitInterval(input.importance, 'importance', issues);
  const createdAt = input.createdAt === undefined ? now : checkTime(input.createdAt, 'createdAt', issues);
  let expiresAt: number | null | undefined = null;
  if (input.expiresAt !== undefined && input.ttl !== undefined) {
    issues.add('ttl', 'give either expiresAt (absolute) or ttl (relative), not both');
  } else if (input.expiresAt !== undefined) {
    expiresAt = checkTime(input.expiresAt, 'expiresAt', issues);
  } else if (input.ttl !== undefined) {
    expiresAt = checkTtl(input.ttl, createdAt ?? now, 'ttl', issues);
  }
  if (expiresAt !== null && expiresAt !== undefined && expiresAt <= now) {
    issues.add(input.ttl !== undefined ? 'ttl' : 'expiresAt', 'is already past: the memory would be expired before it is stored');
  }
  const key = input.key === undefined ? null : isFactKey(input.key) ? input.key : (issues.add('key', `${FACT_KEY_RULE}, got ${describe(input.key)}`), null);
  let validFrom: number | null = null;
  let statedUntil: number | null = null;
  if (input.key === undefined) {
    for (const field of ['validFrom', 'validUntil'] as const) {
      if (input[field] !== undefined) issues.add(field, 'is only for keyed facts: give a key too (or leave it out)');
    }
  } else {
    validFrom = input.validFrom === undefined ? (createdAt ?? now) : (checkTime(input.validFrom, 'validFrom', issues) ?? null);
    if (input.validUntil !== undefined) {
      statedUntil = checkTime(input.validUntil, 'validUntil', issues) ?? null;
      if (statedUntil !== null && validFrom !== null && statedUntil <= validFrom) issues.add('validUntil', 'must be later than validFrom');
    }
  }
  if (!issues.ok || !ns) {
    return { ok: false, code: missingNamespace ? 'NAMESPACE_REQUIRED' : 'INVALID_INPUT', issues: issues.items };
  }
  return {
    ok: true,
    value: {
      namespace: ns.namespace,
      namespaceKey: ns.key,
      id,
      content: content!,
      source: source!,
      layer: layer!,
      tags: tags!,
      metadata: metadata!,
      importance: importance!,
      createdAt: createdAt!,
      expiresAt: expiresAt!,
      key,
      validFrom,
      statedUntil,
    },
  };
}
