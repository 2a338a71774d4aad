import { checkId, IssueList, isPlainObject, describe } from '../model/checks.ts';
import { contentHashes } from '../model/content-hash.ts';
import { invalidInput } from '../model/errors.ts';
import type { ItemFailure } from '../public/errors.ts';
import { requireNamespace } from '../model/namespace.ts';
import type { ApplyReplicatedResult, ReplicatedRecord } from '../model/types.ts';
import type { Namespace } from '../public/memory-record.ts';
import { changesText } from '../model/changes-text.ts';
import { canonicalJson } from '../model/canonical-json.ts';
import { replicatedState } from '../model/replicated-state.ts';
import { validateReplicated } from '../model/validate-replicated.ts';
import type { AuditRow } from '../store/port.ts';
import { dropOrphanVectors } from '../store/delete-rows.ts';
import { withHistory } from '../store/history.ts';
import { factKeysOf, settleKeys } from '../write/settle-keys.ts';
import { fromRow, type RecordRow } from '../store/row.ts';
import { readOptions, resolveActor, type WriteContext } from '../write/verb-context.ts';

/** The apply's commit is not synced to disk on its own: the relay holds these changes durably and sends them again to a replica that lost them (replica.ts). */
const NOT_SYNCED = { durable: false } as const;

type Checked = { index: number; put: ReplicatedRecord; hash: string } | { index: number; delete: string };

/**
 * For `@zeromem/sync`: makes the store hold the record states (or absences) another
 * replica decided, keeping their ids, times and versions. Each change is validated on its
 * own; a bad one is returned in `rejected` and nothing of it is written. Applied changes
 * are audited with `replicated: true`, so the audit log still feeds the search index but
 * sync does not send them back. Compare-and-swap: when the namespace has a local (not
 * replicated) audit entry after `options.after`, nothing is applied and `stale` is true,
 * so a local change the caller has not shared yet is never overwritten unseen. Once
 * committed, this process's other copies of the deleted and written records are purged,
 * and the written ones are queued for embedding. `options.docLog` (a room's document
 * updates) is appended to the document log in the same transaction, so the updates that
 * carried the changes are stored exactly when the changes are (one commit, not two, on a
 * replica's path from the wire to its store).
 */
export async function applyReplicated(ctx: WriteContext, namespace: unknown, changes: unknown, options: unknown): Promise<ApplyReplicatedResult> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const opts = readOptions(options, ['after', 'actor', 'docLog']);
  const actor = resolveActor(ctx, opts);
  const after = opts.after;
  if (typeof after !== 'number' || !Number.isSafeInteger(after) || after < 0) {
    throw invalidInput('options', [{ path: 'after', message: 'must be the last audit seq the caller has read (a whole number, 0 or more)' }]);
  }
  const docLog = checkDocLog(opts.docLog);
  if (!Array.isArray(changes)) throw invalidInput('changes', [{ path: '', message: `must be an array of { put } or { delete }, got ${describe(changes)}` }]);
  const rejected: ItemFailure[] = [];
  const checked: Checked[] = [];
  for (let index = 0; index < changes.length; index++) {
    const change: unknown = changes[index];
    const issues = new IssueList();
    if (isPlainObject(change) && Object.keys(change).length === 1 && 'put' in change) {
      const result = validateReplicated(change.put, ctx.limits);
      if (result.ok) checked.push({ index, put: result.value, hash: '' });
      else rejected.push({ index, code: 'INVALID_INPUT', issues: result.issues.map((i) => ({ ...i, path: i.path ? `put.${i.path}` : 'put' })) });
      continue;
    }
    if (isPlainObject(change) && Object.keys(change).length === 1 && 'delete' in change) {
      const id = checkId(change.delete, 'delete', ctx.limits.maxIdLength, issues);
      if (id !== undefined) checked.push({ index, delete: id });
    } else issues.add('', `must be { put: record } or { delete: id }, got ${describe(change)}`);
    if (!issues.ok) rejected.push({ index, code: 'INVALID_INPUT', issues: issues.items });
  }
  // One pass over every content (an initial sync brings thousands), not a wait per record.
  const puts = checked.filter((change) => 'put' in change);
  const hashes = await contentHashes(puts.map((change) => change.put.content));
  puts.forEach((change, i) => (change.hash = hashes[i]!));
  const now = ctx.clock.now();
  const result = await ctx.store.write(async (tx): Promise<ApplyReplicatedResult> => {
    // The document updates that carried these changes commit with them (stale or not: the document holds them already).
    const logged = docLog ? { docLogSize: await tx.appendDocLog(docLog.room, docLog.updates) } : {};
    if ((await tx.auditAfter(ns.key, after, { limit: 1, localOnly: true })).length) {
      return { stale: true, written: [], deleted: [], rejected, lastSeq: await tx.lastAuditSeq(ns.key), ...logged };
    }
    // Bulk reads and writes: an initial sync applies thousands of records in one call.
    const ids = [...new Set(checked.map((change) => ('put' in change ? change.put.id : change.delete)))];
    const stored = await tx.getRecords(ids.map((id) => [ns.key, id] as const));
    const current = new Map<string, RecordRow | undefined>(ids.map((id, i) => [id, stored[i]]));
    const original = new Map(current);
    const audit: AuditRow[] = [];
    const log = (op: 'remember' | 'update' | 'forget', id: string) => audit.push({ ns: ns.key, op, id, namespace: ns.namespace, at: now, actor, replicated: true });
    for (const change of checked) {
      const id = 'put' in change ? change.put.id : change.delete;
      const existing = current.get(id);
      if ('delete' in change) {
        if (!existing) continue;
        current.set(id, undefined);
        log('forget', id);
        continue;
      }
      if (existing && sameState(existing, change.put)) continue;
      const row = replicatedRow(change.put, ns, change.hash, existing);
      current.set(id, existing ? withHistory(row, existing, actor, now, ctx.historyDepth) : row);
      log(existing ? 'update' : 'remember', id);
    }
    const puts: RecordRow[] = [];
    const deleted: string[] = [];
    const oldHashes: string[] = [];
    let textGone = false; // a forget or a change of content, tags or metadata: the old text must not outlive it in a snapshot
    for (const [id, row] of current) {
      const before = original.get(id);
      if (row === before) continue;
      if (row) puts.push(row);
      else deleted.push(id);
      if (before && (!row || row.contentHash !== before.contentHash)) oldHashes.push(before.contentHash);
      textGone ||= before !== undefined && (!row || changesText(row, before));
    }
    await tx.deleteRecords(deleted.map((id) => [ns.key, id] as const));
    await tx.putRecords(puts);
    await tx.appendAudit(audit);
    if (oldHashes.length) await dropOrphanVectors(tx, oldHashes);
    if (textGone) await tx.deleteSnapshots([ns.key]);
    // Versions of fact keys came or went: every replica derives the intervals the same way.
    const settled = new Map((await settleKeys(tx, factKeysOf([...puts, ...[...original.values()].filter((row) => row !== undefined)]))).map((row) => [row.id, row]));
    const written = puts.map((row) => fromRow(settled.get(row.id) ?? row));
    return { stale: false, written, deleted, rejected, lastSeq: await tx.lastAuditSeq(ns.key), ...logged };
  }, NOT_SYNCED);
  // A forget from another replica reaches this process's copies like a local one; content
  // it replaced must not stay in a queued embedding either.
  await ctx.copies.purgeRecords([...result.deleted, ...result.written.map((record) => record.id)].map((id) => ({ ns: ns.key, id })));
  ctx.copies.added(result.written);
  return result;
}

/** The `docLog` option: a room's document updates to append in the same transaction. */
function checkDocLog(value: unknown): { room: string; updates: readonly Uint8Array[] } | undefined {
  if (value === undefined) return undefined;
  if (isPlainObject(value) && typeof value.room === 'string' && value.room !== '' && Array.isArray(value.updates) && value.updates.every((u) => u instanceof Uint8Array)) {
    return { room: value.room, updates: value.updates as Uint8Array[] };
  }
  throw invalidInput('options', [{ path: 'docLog', message: `must be { room: a non-empty string, updates: Uint8Array[] }, got ${describe(value)}` }]);
}

/**
 * The row of a replicated state, as `toRow` makes it of the record: the state with this
 * replica's namespace, the hash taken here, and this device's own access statistics and
 * tier. Built in one object literal rather than a record spread and then `toRow`'s rest
 * and spread (three objects of ~25 fields per record; an initial sync applies thousands).
 * The literal is checked against `RecordRow`: a new required field of a record fails to
 * compile here.
 */
function replicatedRow(put: ReplicatedRecord, ns: { key: string; namespace: Namespace }, contentHash: string, existing: RecordRow | undefined): RecordRow {
  const row: RecordRow = {
    id: put.id,
    namespace: ns.namespace,
    namespaceKey: ns.key,
    content: put.content,
    source: put.source,
    layer: put.layer,
    tags: put.tags,
    metadata: put.metadata,
    importance: put.importance,
    createdAt: put.createdAt,
    updatedAt: put.updatedAt,
    expiresAt: put.expiresAt,
    // Access statistics and the hot/cold tier are this device's own; they do not travel.
    accessCount: existing?.accessCount ?? 0,
    lastAccessedAt: existing?.lastAccessedAt ?? null,
    contentHash,
    version: put.version,
    tier: existing?.tier ?? 'hot',
    mergedFrom: put.mergedFrom,
    ns: ns.key,
    userId: ns.namespace.userId,
  };
  // An unkeyed record's row holds no keyed-fact fields (toRow); validUntil and closedBy are derived again by settleKeys from the versions of the key this replica holds.
  if (put.key !== null) {
    row.key = put.key;
    row.validFrom = put.validFrom;
    row.validUntil = put.statedUntil;
    row.closedBy = null;
    row.statedUntil = put.statedUntil;
  }
  return row;
}

function sameState(row: RecordRow, state: ReplicatedRecord): boolean {
  return canonicalJson(replicatedState(fromRow(row))) === canonicalJson(state);
}
