import type { InputIssue } from '../public/errors.ts';
import { IssueList, checkIdList, checkContent, checkEnum, checkId, checkKnownKeys, checkMetadata, checkTags, checkTime, checkUnitInterval, describe, isPlainObject } from './checks.ts';
import type { Limits } from '../public/limits.ts';
import { OPTIONAL_REPLICATED_FIELDS, REPLICATED_FIELDS } from './replicated-state.ts';
import { FACT_KEY_RULE, isFactKey } from './validity.ts';
import { LAYERS, SOURCES, type ReplicatedRecord } from './types.ts';

/**
 * Validates a record state that came from another replica. Unlike `remember`, nothing is
 * defaulted: a replica sends whole records, and a missing field means a broken sender.
 */
export function validateReplicated(value: unknown, limits: Limits): { ok: true; value: ReplicatedRecord } | { ok: false; issues: InputIssue[] } {
  const issues = new IssueList();
  if (!isPlainObject(value)) {
    issues.add('', `must be a record object, got ${describe(value)}`);
    return { ok: false, issues: issues.items };
  }
  checkKnownKeys(value, REPLICATED_FIELDS, '', issues);
  for (const field of REPLICATED_FIELDS) if (value[field] === undefined && !OPTIONAL_REPLICATED_FIELDS.has(field)) issues.add(field, 'is required in a replicated record');
  const id = checkId(value.id, 'id', limits.maxIdLength, issues);
  const content = checkContent(value.content, 'content', limits.maxContentBytes, issues);
  const source = checkEnum(value.source, SOURCES, 'source', issues);
  const layer = checkEnum(value.layer, LAYERS, 'layer', issues);
  const tags = checkTags(value.tags, 'tags', limits.maxTags, limits.maxTagLength, issues);
  const metadata = checkMetadata(value.metadata, 'metadata', limits.maxMetadataBytes, limits.maxMetadataDepth, issues);
  const importance = checkUnitInterval(value.importance, 'importance', issues);
  // Epoch numbers only: a replica never sends Dates or ISO strings.
  const createdAt = typeof value.createdAt === 'number' ? checkTime(value.createdAt, 'createdAt', issues) : undefined;
  const updatedAt = typeof value.updatedAt === 'number' ? checkTime(value.updatedAt, 'updatedAt', issues) : undefined;
  if (value.createdAt !== undefined && typeof value.createdAt !== 'number') issues.add('createdAt', 'must be epoch milliseconds');
  if (value.updatedAt !== undefined && typeof value.updatedAt !== 'number') issues.add('updatedAt', 'must be epoch milliseconds');
  let expiresAt: number | null | undefined = null;
  if (value.expiresAt !== null) {
    expiresAt = typeof value.expiresAt === 'number' ? checkTime(value.expiresAt, 'expiresAt', issues) : undefined;
    if (value.expiresAt !== undefined && typeof value.expiresAt !== 'number') issues.add('expiresAt', 'must be epoch milliseconds or null');
  }
  // Consolidation keeps a few ids per merge; a bound keeps a hostile replica from sending millions.
  const maxMerged = limits.maxTags * 32;
  let mergedFrom: string[] | undefined;
  if (Array.isArray(value.mergedFrom) && value.mergedFrom.length > maxMerged) issues.add('mergedFrom', `must hold at most ${maxMerged} ids, got ${value.mergedFrom.length}`);
  else if (value.mergedFrom !== undefined) mergedFrom = checkIdList(value.mergedFrom, 'mergedFrom', limits.maxIdLength, issues);
  const version = value.version;
  if (version !== undefined && !(typeof version === 'number' && Number.isSafeInteger(version) && version >= 1)) issues.add('version', 'must be a whole number, 1 or more');
  if (createdAt !== undefined && updatedAt !== undefined && updatedAt < createdAt) issues.add('updatedAt', 'must not be before createdAt');
  const key = value.key ?? null;
  if (key !== null && !isFactKey(key)) issues.add('key', `${FACT_KEY_RULE}, got ${describe(key)}`);
  const times: { validFrom: number | null; statedUntil: number | null } = { validFrom: null, statedUntil: null };
  for (const field of ['validFrom', 'statedUntil'] as const) {
    const time = value[field] ?? null;
    if (time === null) continue;
    if (key === null) issues.add(field, 'is only for keyed facts (key is null)');
    else if (typeof time !== 'number') issues.add(field, 'must be epoch milliseconds or null');
    else times[field] = checkTime(time, field, issues) ?? null;
  }
  if (key !== null && times.validFrom === null && value.validFrom === null) issues.add('validFrom', 'is required for a keyed fact');
  if (times.validFrom !== null && times.statedUntil !== null && times.statedUntil <= times.validFrom) issues.add('statedUntil', 'must be later than validFrom');
  if (!issues.ok) return { ok: false, issues: issues.items };
  return {
    ok: true,
    value: {
      id: id!,
      content: content!,
      source: source!,
      layer: layer!,
      tags: tags!,
      metadata: metadata!,
      importance: importance!,
      createdAt: createdAt!,
      updatedAt: updatedAt!,
      expiresAt: expiresAt!,
      version: version as number,
      mergedFrom: mergedFrom!,
      key: key as string | null,
      validFrom: times.validFrom,
      statedUntil: times.statedUntil,
    },
  };
}
