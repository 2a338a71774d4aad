import { invalidInput } from './errors.ts';
import {
  IssueList,
  checkContent,
  checkEnum,
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
import { LAYERS, SOURCES } from './types.ts';
import type { JsonObject, Layer, Source } from '../public/memory-record.ts';

const PATCH_FIELDS = ['content', 'source', 'layer', 'tags', 'metadata', 'importance', 'expiresAt', 'ttl'] as const;

/** A validated update patch: only the fields to change are present. */
export interface PreparedPatch {
  content?: string;
  source?: Source;
  layer?: Layer;
  tags?: string[];
  metadata?: JsonObject;
  importance?: number;
  expiresAt?: number | null;
}

/** Validates an update patch; throws INVALID_INPUT listing every problem. */
export function validatePatch(patch: unknown, limits: Limits, now: number): PreparedPatch {
  const issues = new IssueList();
  if (!isPlainObject(patch)) {
    issues.add('', `must be an object with the fields to change, got ${describe(patch)}`);
    throw invalidInput('update patch', issues.items);
  }
  checkKnownKeys(patch, PATCH_FIELDS, '', issues);
  const out: PreparedPatch = {};
  if (patch.content !== undefined) out.content = checkContent(patch.content, 'content', limits.maxContentBytes, issues);
  if (patch.source !== undefined) out.source = checkEnum(patch.source, SOURCES, 'source', issues);
  if (patch.layer !== undefined) out.layer = checkEnum(patch.layer, LAYERS, 'layer', issues);
  if (patch.tags !== undefined) out.tags = checkTags(patch.tags, 'tags', limits.maxTags, limits.maxTagLength, issues);
  if (patch.metadata !== undefined)
    out.metadata = checkMetadata(patch.metadata, 'metadata', limits.maxMetadataBytes, limits.maxMetadataDepth, issues);
  if (patch.importance !== undefined) out.importance = checkUnitInterval(patch.importance, 'importance', issues);
  if (patch.expiresAt !== undefined && patch.ttl !== undefined) {
    issues.add('ttl', 'give either expiresAt (absolute, or null for never) or ttl (relative), not both');
  } else if (patch.expiresAt === null) {
    out.expiresAt = null;
  } else if (patch.expiresAt !== undefined) {
    out.expiresAt = checkTime(patch.expiresAt, 'expiresAt', issues);
  } else if (patch.ttl !== undefined) {
    out.expiresAt = checkTtl(patch.ttl, now, 'ttl', issues);
  }
  if (out.expiresAt !== undefined && out.expiresAt !== null && out.expiresAt <= now) {
    issues.add('expiresAt', 'is already past; use forget() to remove a memory now');
  }
  if (!issues.ok) throw invalidInput('update patch', issues.items);
  if (Object.keys(out).length === 0) {
    throw invalidInput('update patch', [{ path: '', message: `is empty; give at least one of ${PATCH_FIELDS.join(', ')}` }]);
  }
  return out;
}
