import { contentHash } from '../model/content-hash.ts';
import { invalidInput } from '../model/errors.ts';
import { ZeromemError } from '../public/errors.ts';
import { requireNamespace } from '../model/namespace.ts';
import type { MemoryRecord } from '../public/memory-record.ts';
import { canonicalJson } from '../model/canonical-json.ts';
import { validatePatch, type PreparedPatch } from '../model/validate-patch.ts';
import { changesText } from '../model/changes-text.ts';
import { dropOrphanVectors } from '../store/delete-rows.ts';
import { withHistory } from '../store/history.ts';
import { fromRow, isExpired, toRow } from '../store/row.ts';
import { requireId } from './get.ts';
import { auditCounts } from './remember.ts';
import { readOptions, resolveActor, type WriteContext } from '../write/verb-context.ts';

/**
 * Changes some fields of a record and returns the new record. `updatedAt` moves to now,
 * `version` grows by one, and a content change recomputes the hash. NOT_FOUND when there
 * is no such live record; CONFLICT when `ifVersion` does not match or the new content
 * equals another record's in the namespace. The record is queued for embedding (unchanged
 * content keeps its stored vector: the queue finds it under [model+hash] and embeds nothing).
 */
export async function update(ctx: WriteContext, namespace: unknown, id: unknown, patch: unknown, options?: unknown): Promise<MemoryRecord> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const recordId = requireId(ctx, id);
  const opts = readOptions(options, ['actor', 'ifVersion']);
  const actor = resolveActor(ctx, opts);
  if (opts.ifVersion !== undefined && !(typeof opts.ifVersion === 'number' && Number.isInteger(opts.ifVersion) && opts.ifVersion >= 1)) {
    throw invalidInput('options', [{ path: 'ifVersion', message: 'must be a whole number, 1 or more' }]);
  }
  const now = ctx.clock.now();
  const checked = validatePatch(patch, ctx.limits, now);
  const redacted = ctx.redactor ? await ctx.redactor.redact(checked, 'patch') : { ok: true as const, value: checked, counts: [] };
  if (!redacted.ok) throw invalidInput('patch', redacted.issues);
  const changes = redacted.value;
  const hash = changes.content === undefined ? undefined : await contentHash(changes.content);
  const record = await ctx.store.write(async (tx) => {
    const [row] = await tx.getRecords([[ns.key, recordId]]);
    if (!row || isExpired(row, now)) {
      throw new ZeromemError('NOT_FOUND', `No memory "${recordId}" in namespace ${ns.key} (it may have been forgotten or expired).`);
    }
    if (opts.ifVersion !== undefined && row.version !== opts.ifVersion) {
      throw new ZeromemError('CONFLICT', `Memory "${recordId}" is at version ${row.version}, not ${opts.ifVersion}: it changed since you read it. Read it again and retry.`, {
        currentVersion: row.version,
      });
    }
    if (hash !== undefined && hash !== row.contentHash) {
      const [twin] = await tx.recordsByContentHash([[ns.key, hash]]);
      if (twin && isExpired(twin, now)) {
        await tx.deleteRecords([[twin.ns, twin.id]]);
        await tx.appendAudit([{ ns: ns.key, op: 'expire', id: twin.id, namespace: ns.namespace, at: now, actor: 'sweep' }]);
        await tx.deleteSnapshots([ns.key]);
      } else if (twin) {
        throw new ZeromemError('CONFLICT', `Memory "${twin.id}" in this namespace already has this content; forget one of them instead.`, {
          existingId: twin.id,
        });
      }
    }
    const current = fromRow(row);
    if (changesNothing(current, changes, hash)) return current; // no version, no audit entry for a no-op
    const record: MemoryRecord = {
      ...current,
      ...changes,
      contentHash: hash ?? row.contentHash,
      updatedAt: Math.max(now, row.updatedAt),
      version: row.version + 1,
    };
    await tx.putRecords([withHistory(toRow(record), row, actor, now, ctx.historyDepth)]);
    if (record.contentHash !== row.contentHash) await dropOrphanVectors(tx, [row.contentHash]);
    // The old text (content, tags, metadata) must not outlive the change in a stored snapshot.
    if (changesText(record, row)) await tx.deleteSnapshots([ns.key]);
    await tx.appendAudit([{ ns: ns.key, op: 'update', id: recordId, namespace: ns.namespace, at: now, actor, ...auditCounts(redacted.counts) }]);
    return record;
  });
  ctx.copies.added([record]);
  return record;
}

/** True when applying the patch would leave the record as it is. */
function changesNothing(record: MemoryRecord, changes: PreparedPatch, hash: string | undefined): boolean {
  return (
    (hash === undefined || hash === record.contentHash) &&
    (changes.content === undefined || changes.content === record.content) &&
    (changes.source === undefined || changes.source === record.source) &&
    (changes.layer === undefined || changes.layer === record.layer) &&
    (changes.importance === undefined || changes.importance === record.importance) &&
    (changes.expiresAt === undefined || changes.expiresAt === record.expiresAt) &&
    (changes.tags === undefined || canonicalJson(changes.tags) === canonicalJson(record.tags)) &&
    (changes.metadata === undefined || canonicalJson(changes.metadata) === canonicalJson(record.metadata))
  );
}
