import { contentHash, contentHashes } from '../model/content-hash.ts';
import { describe } from '../model/checks.ts';
import { invalidInput } from '../model/errors.ts';
import { ZeromemError, type ItemFailure } from '../public/errors.ts';
import type { LatestVersion, RememberManyResult, RememberResult } from '../public/remember.ts';
import type { RedactionCount } from '../public/redaction.ts';
import { validateRemember, type PreparedRemember } from '../model/validate-remember.ts';
import type { AuditRow } from '../store/port.ts';
import { keepHistory } from '../store/history.ts';
import { fromRow, isExpired, toRow, type RecordRow } from '../store/row.ts';
import { readOptions, resolveActor, type VerbContext, type WriteContext } from '../write/verb-context.ts';
import { suggestUpdates } from '../lifecycle/suggest-updates.ts';
import type { MemoryContext } from './memory-context.ts';
import { raiseOnDuplicate } from '../write/duplicate.ts';
import { enforceQuota } from '../write/quota.ts';
import { compareVersions } from '../model/validity.ts';
import { factKeysOf, settleKeys } from '../write/settle-keys.ts';
import type { RedactionOutcome } from '../redact/redactor.ts';

/** Rows written per bulk call; `onProgress` fires after each. */
const CHUNK = 2000;

interface Item {
  index: number;
  value: PreparedRemember;
  /** The content hash (set once the batch is hashed, in one pass). */
  hash: string;
  /** What redaction masked or hashed in it. */
  redacted?: RedactionCount[];
}

/**
 * Stores one memory and resolves once its transaction has committed. An exact duplicate (same namespace,
 * same normalized content) creates nothing: the existing id comes back with
 * `deduplicated: true`, keeping the higher importance and the later expiry. A new record
 * is queued for embedding; with `suggestUpdates: true`, an unkeyed one comes back with
 * the live memories it may be a new value of.
 */
export async function remember(ctx: MemoryContext, input: unknown, options?: unknown): Promise<RememberResult> {
  const opts = readOptions(options, ['actor', 'suggestUpdates', 'ifLatest']);
  const actor = resolveActor(ctx, opts);
  if (opts.suggestUpdates !== undefined && typeof opts.suggestUpdates !== 'boolean') {
    throw invalidInput('options', [{ path: 'suggestUpdates', message: `must be true or false, got ${describe(opts.suggestUpdates)}` }]);
  }
  const ifLatest = readIfLatest(opts.ifLatest);
  const checked = validateRemember(input, ctx.limits, ctx.clock.now());
  if (checked.ok && ifLatest !== undefined && checked.value.key === null) {
    throw invalidInput('options', [{ path: 'ifLatest', message: 'is only for keyed facts: give the memory a key' }]);
  }
  if (!checked.ok) {
    if (checked.code === 'NAMESPACE_REQUIRED') {
      throw new ZeromemError('NAMESPACE_REQUIRED', 'remember() needs input.namespace with a userId: every memory belongs to a namespace.', {
        issues: checked.issues,
      });
    }
    throw invalidInput('memory', checked.issues);
  }
  const redacted = await redactItem(ctx, checked.value);
  if (!redacted.ok) throw invalidInput('memory', redacted.issues);
  const item: Item = { index: 0, value: redacted.value, hash: await contentHash(redacted.value.content), ...withCounts(redacted.counts) };
  const { results, failures } = await writeItems(ctx, [item], actor, undefined, false, ifLatest);
  if (failures[0]) throw conflictError(failures);
  const result = stripIndex(results[0]!);
  if (result.deduplicated) return result;
  ctx.copies.added([result.record]);
  // Unkeyed only: a keyed fact already says what it replaces.
  return opts.suggestUpdates === true ? withSuggestions(ctx, result) : result;
}

/** The committed result with the live memories it may be a new value of (lifecycle/suggest-updates.ts). */
async function withSuggestions(ctx: MemoryContext, result: RememberResult): Promise<RememberResult> {
  try {
    const suggestedUpdates = await suggestUpdates(ctx, result.record);
    return suggestedUpdates.length ? { ...result, suggestedUpdates } : result;
  } catch (err) {
    // The memory is committed: a failed look-up must not make the caller think it was not.
    // It goes to onBackgroundError; without a listener the write stands without suggestions.
    ctx.reportToListener(err);
    return result;
  }
}

/**
 * Stores many memories in one atomic transaction. With any invalid item nothing is
 * written and the INVALID_INPUT error lists every bad item by position; with
 * `skipInvalid: true` the valid items are written and the bad ones come back as failures.
 * The new records are queued for embedding.
 */
export async function rememberMany(ctx: WriteContext, inputs: unknown, options?: unknown): Promise<RememberManyResult> {
  const opts = readOptions(options, ['actor', 'skipInvalid', 'onProgress']);
  const actor = resolveActor(ctx, opts);
  const optionIssues = [];
  if (opts.skipInvalid !== undefined && typeof opts.skipInvalid !== 'boolean') optionIssues.push({ path: 'skipInvalid', message: 'must be a boolean' });
  if (opts.onProgress !== undefined && typeof opts.onProgress !== 'function') optionIssues.push({ path: 'onProgress', message: 'must be a function' });
  if (optionIssues.length) throw invalidInput('options', optionIssues);
  if (!Array.isArray(inputs)) throw invalidInput('batch', [{ path: '', message: 'rememberMany() takes an array of memories' }]);
  const skipInvalid = opts.skipInvalid === true;
  const onProgress = opts.onProgress as ((p: { done: number; total: number }) => void) | undefined;

  const now = ctx.clock.now();
  const valid: Item[] = [];
  const failures: ItemFailure[] = [];
  for (let index = 0; index < inputs.length; index++) {
    const checked = validateRemember(inputs[index], ctx.limits, now);
    if (!checked.ok) {
      failures.push({ index, code: checked.code, issues: checked.issues });
      continue;
    }
    // Without a redactor nothing is awaited per item (a bulk import's items are many).
    if (!ctx.redactor) {
      valid.push({ index, value: checked.value, hash: '' });
      continue;
    }
    const redacted = await ctx.redactor.redact(checked.value);
    if (redacted.ok) valid.push({ index, value: redacted.value, hash: '', ...withCounts(redacted.counts) });
    else failures.push({ index, code: 'INVALID_INPUT', issues: redacted.issues });
  }
  if (failures.length && !skipInvalid) {
    throw new ZeromemError(
      'INVALID_INPUT',
      `${failures.length} of ${inputs.length} memories are invalid (first at position ${failures[0]!.index}: ${describeFailure(failures[0]!)}); nothing was written. Fix them, or pass { skipInvalid: true } to write the valid ones.`,
      { items: failures },
    );
  }
  const hashes = await contentHashes(valid.map((item) => item.value.content));
  for (let i = 0; i < valid.length; i++) valid[i]!.hash = hashes[i]!;
  const written = await writeItems(ctx, valid, actor, onProgress, skipInvalid);
  if (written.failures.length && !skipInvalid) throw conflictError(written.failures);
  ctx.copies.added(written.results.filter((r) => !r.deduplicated).map((r) => r.record));
  return { results: written.results, failures: [...failures, ...written.failures].sort((a, b) => a.index - b.index) };
}

function describeFailure(failure: ItemFailure): string {
  const issue = failure.issues[0];
  return issue ? `${issue.path ? `${issue.path}: ` : ''}${issue.message}` : failure.code;
}

function conflictError(failures: ItemFailure[]): ZeromemError {
  const first = failures[0]!;
  return new ZeromemError(
    'CONFLICT',
    failures.length === 1
      ? `${describeFailure(first)}. Use update() to change a record, or choose another id.`
      : `${failures.length} memories conflict with stored records (first at position ${first.index}: ${describeFailure(first)}); nothing was written.`,
    failures.length === 1 ? { issues: first.issues } : { items: failures },
  );
}

function stripIndex(result: RememberResult & { index: number }): RememberResult {
  const { index: _index, ...rest } = result;
  return rest;
}

/** The item as stored: with the memory's redaction applied (or refused), unchanged without one. */
async function redactItem(ctx: VerbContext, value: PreparedRemember): Promise<RedactionOutcome<PreparedRemember>> {
  if (!ctx.redactor) return { ok: true, value, counts: [] };
  return ctx.redactor.redact(value);
}

function withCounts(counts: RedactionCount[]): { redacted?: RedactionCount[] } {
  return counts.length ? { redacted: counts } : {};
}

/** Audit form of redaction counts: detector -> values. */
export function auditCounts(counts: RedactionCount[] | undefined): { redacted?: Record<string, number> } {
  if (!counts?.length) return {};
  const redacted: Record<string, number> = {};
  for (const c of counts) redacted[c.detector] = (redacted[c.detector] ?? 0) + c.count;
  return { redacted };
}

/**
 * The transaction: dedupe against stored and in-batch records, refuse id conflicts,
 * enforce the namespace quota, then write rows and audit entries. Any throw aborts it whole.
 */
async function writeItems(
  ctx: VerbContext,
  items: Item[],
  actor: string,
  onProgress: ((p: { done: number; total: number }) => void) | undefined,
  skipConflicts: boolean,
  ifLatest?: LatestVersion | string | null,
): Promise<{ results: Array<RememberResult & { index: number }>; failures: ItemFailure[] }> {
  const now = ctx.clock.now();
  return ctx.store.write(async (tx) => {
    const byHash = new Map<string, RecordRow>();
    // Each item's key(namespace key, hash), made once: the loop below looks it up again.
    const itemHashKeys = new Array<string>(items.length);
    const hashKeys: Array<[string, string]> = [];
    const seen = new Set<string>();
    for (let i = 0; i < items.length; i++) {
      const { value, hash } = items[i]!;
      const hashKey = key(value.namespaceKey, hash);
      itemHashKeys[i] = hashKey;
      if (seen.has(hashKey)) continue;
      seen.add(hashKey);
      hashKeys.push([value.namespaceKey, hash]);
    }
    for (const row of await tx.recordsByContentHash(hashKeys)) {
      // A keyed fact is a duplicate only of its own key's current version (below).
      if (row.key) continue;
      // An expired twin may still be stored next to a live one: the live one wins.
      const previous = byHash.get(key(row.ns, row.contentHash));
      if (!previous || isExpired(previous, now)) byHash.set(key(row.ns, row.contentHash), row);
    }
    const byId = new Map<string, RecordRow>(); // stored rows by key(ns, id), and their raised versions (new rows are in `added`)
    const idKeys = uniqueKeys(items.filter((item) => item.value.id !== undefined).map((item) => [item.value.namespaceKey, item.value.id!]));
    const idRows = idKeys.length ? await tx.getRecords(idKeys) : [];
    for (const row of idRows) if (row) byId.set(key(row.ns, row.id), row);
    // The stored versions of every fact key written (new ones join them as they are made).
    const versions = new Map<string, RecordRow[]>();
    for (const [ns, factKey] of factKeysOf(items.filter((item) => item.value.key !== null).map((item) => ({ ns: item.value.namespaceKey, key: item.value.key })))) {
      versions.set(key(ns, factKey), await tx.recordsByKey(ns, factKey));
    }

    const added = new Map<string, RecordRow>(); // key(ns, id) -> new row
    const changed = new Map<string, RecordRow>(); // key(ns, id) -> existing row with raised importance/expiry
    const expired = new Map<string, RecordRow>(); // key(ns, id) -> expired row to delete
    const results: Array<RememberResult & { index: number }> = [];
    const failures: ItemFailure[] = [];
    const redactedRows = new Map<string, RedactionCount[]>(); // key(ns, id) -> what redaction did to a new row
    const retire = (row: RecordRow) => {
      expired.set(key(row.ns, row.id), row);
      byHash.delete(key(row.ns, row.contentHash));
      byId.delete(key(row.ns, row.id));
    };

    // The row each result's record was made from: a later in-batch duplicate may raise it.
    const resultRows: RecordRow[] = [];
    let raisedAny = false;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      const { value } = item;
      const hashKey = itemHashKeys[i]!;
      const siblings = value.key === null ? undefined : versions.get(key(value.namespaceKey, value.key))!;
      if (ifLatest !== undefined && siblings) refuseUnlessLatest(siblings, value.key!, ifLatest, now);
      let existing = siblings ? sameCurrentFact(siblings, value, item.hash, now) : byHash.get(hashKey);
      if (existing && isExpired(existing, now) && !added.has(key(existing.ns, existing.id))) {
        retire(existing);
        existing = undefined;
      }
      if (value.id !== undefined) {
        const holderKey = key(value.namespaceKey, value.id);
        let holder = added.get(holderKey) ?? byId.get(holderKey);
        if (holder && isExpired(holder, now) && !added.has(key(holder.ns, holder.id))) {
          retire(holder);
          holder = undefined;
        }
        if (holder && holder.contentHash !== item.hash) {
          failures.push({
            index: item.index,
            code: 'CONFLICT',
            issues: [{ path: 'id', message: `a different memory already has id "${value.id}" in this namespace` }],
          });
          continue;
        }
        existing = holder ?? existing;
      }
      if (existing) {
        const raised = raiseOnDuplicate(existing, value, now);
        if (raised !== existing) {
          raisedAny = true;
          const idKey = key(raised.ns, raised.id);
          byHash.set(hashKey, raised);
          byId.set(idKey, raised);
          if (added.has(idKey)) added.set(idKey, raised);
          else changed.set(idKey, raised);
        }
        if (siblings?.includes(existing)) siblings.splice(siblings.indexOf(existing), 1, raised);
        results.push({ index: item.index, id: raised.id, deduplicated: true, record: fromRow(raised), closed: [], suggestedUpdates: [], ...withCounts(item.redacted ?? []) });
        resultRows.push(raised);
        continue;
      }
      const row = newRow(value, value.id ?? ctx.newId(value.createdAt), item.hash);
      const record = fromRow(row);
      const idKey = key(row.ns, row.id);
      added.set(idKey, row);
      if (siblings) siblings.push(row);
      else byHash.set(hashKey, row);
      const result = { index: item.index, id: row.id, deduplicated: false, record, closed: [], suggestedUpdates: [] };
      results.push(item.redacted ? { ...result, redacted: item.redacted } : result);
      resultRows.push(row);
      if (item.redacted) redactedRows.set(idKey, item.redacted);
    }
    if (failures.length && !skipConflicts) return { results: [], failures };

    await enforceQuota(ctx, tx, [...added.values()], now);
    const audit: AuditRow[] = [];
    const log = (op: AuditRow['op'], row: RecordRow, by: string) =>
      audit.push(
        op === 'remember' && redactedRows.size
          ? { ns: row.ns, op, id: row.id, namespace: row.namespace, at: now, actor: by, ...auditCounts(redactedRows.get(key(row.ns, row.id))) }
          : { ns: row.ns, op, id: row.id, namespace: row.namespace, at: now, actor: by },
      );
    if (expired.size) {
      await tx.deleteRecords([...expired.values()].map((row) => [row.ns, row.id] as const));
      for (const row of expired.values()) log('expire', row, 'sweep');
    }
    const rows = [...added.values()];
    for (let start = 0; start < rows.length; start += CHUNK) {
      await tx.putRecords(rows.slice(start, start + CHUNK));
      onProgress?.({ done: Math.min(start + CHUNK, rows.length), total: rows.length });
    }
    if (changed.size) await tx.putRecords([...changed.values()]);
    for (const row of rows) log('remember', row, actor);
    for (const row of changed.values()) log('update', row, actor);
    await tx.appendAudit(audit);
    // New versions of fact keys: every version's interval derived again (write/settle-keys.ts).
    // The versions read above and made here are what is stored now, less the expired rows deleted in the way.
    const stored = new Map([...versions].map(([k, list]) => [k, list.filter((row) => !expired.has(key(row.ns, row.id)))]));
    const settled = versions.size ? await settleKeys(tx, factKeysOf(rows), stored) : [];
    if (settled.length) {
      for (const row of settled) {
        const idKey = key(row.ns, row.id);
        if (added.has(idKey)) added.set(idKey, row);
        else if (changed.has(idKey)) changed.set(idKey, row);
      }
      const closedBy = new Map<string, string[]>();
      for (const row of settled) if (row.closedBy && added.has(key(row.ns, row.closedBy))) closedBy.set(row.closedBy, [...(closedBy.get(row.closedBy) ?? []), row.id]);
      for (const result of results) if (!result.deduplicated) result.closed = closedBy.get(result.id) ?? [];
    }
    // Results of in-batch duplicates (and settled versions) must show the final state of their record.
    if (raisedAny || settled.length) {
      const finalRows = new Map([...added, ...changed]);
      results.forEach((result, i) => {
        const row = finalRows.get(key(result.record.namespaceKey, result.id));
        if (row && row !== resultRows[i]) result.record = fromRow(row);
      });
    }
    return { results, failures }; // in input order, as the items are
  });
}

/**
 * The version a keyed write repeats, if any: the key's current version (greatest
 * validFrom, id) when it has exactly the same text, is open, and the write neither starts
 * before it nor states an end. Anything else is a new version. Exactly: a fact's text is
 * its value (a file kept as a fact reads back byte for byte), so text that differs only in
 * whitespace or Unicode form, which the content hash folds, is a new version too.
 */
function sameCurrentFact(siblings: RecordRow[], value: PreparedRemember, hash: string, now: number): RecordRow | undefined {
  const live = siblings.filter((row) => !isExpired(row, now));
  if (!live.length) return undefined;
  const current = live.reduce((a, b) => (compareVersions(facts(a), facts(b)) >= 0 ? a : b));
  const repeats = current.contentHash === hash && current.content === value.content && (current.statedUntil ?? null) === null && value.statedUntil === null && value.validFrom! >= facts(current).validFrom;
  return repeats ? current : undefined;
}

/** `ifLatest` checked: a record id, `{ id, version }` (version a whole number, 1 or more), `null`, or undefined. */
function readIfLatest(value: unknown): LatestVersion | string | null | undefined {
  if (value === undefined || value === null || typeof value === 'string') return value;
  if (typeof value === 'object' && Object.keys(value).length === 2) {
    const { id, version } = value as Record<string, unknown>;
    if (typeof id === 'string' && typeof version === 'number' && Number.isInteger(version) && version >= 1) return { id, version };
  }
  throw invalidInput('options', [{ path: 'ifLatest', message: `must be a record id, { id, version } (version a whole number, 1 or more) or null, got ${describe(value)}` }]);
}

/**
 * The compare-and-set of `ifLatest`: CONFLICT (naming the latest version in `existingId`)
 * unless the key's latest live version, by (validFrom, id), is `expected` (`null`: unless
 * the key has none; `{ id, version }`: and still at that version, not updated in place).
 * Checked inside the write transaction, so of two writers that read the same latest
 * version, one writes and the other is told.
 */
function refuseUnlessLatest(siblings: RecordRow[], factKey: string, expectedLatest: LatestVersion | string | null, now: number): void {
  const live = siblings.filter((row) => !isExpired(row, now));
  const latest = live.length ? live.reduce((a, b) => (compareVersions(facts(a), facts(b)) >= 0 ? a : b)) : undefined;
  const expected = typeof expectedLatest === 'object' && expectedLatest !== null ? expectedLatest.id : expectedLatest;
  if ((latest?.id ?? null) === expected) {
    if (typeof expectedLatest !== 'object' || expectedLatest === null || latest!.version === expectedLatest.version) return;
    throw new ZeromemError(
      'CONFLICT',
      `Fact "${factKey}" version "${expected}" was changed in place since you read it (now at version ${latest!.version}, not ${expectedLatest.version}). Read it again and retry.`,
      { existingId: latest!.id, currentVersion: latest!.version },
    );
  }
  throw new ZeromemError(
    'CONFLICT',
    latest
      ? `Fact "${factKey}" has a later version ("${latest.id}") than ${expected === null ? 'none' : `"${expected}"`}: it changed since you read it. Read it again and retry.`
      : `Fact "${factKey}" has no version, not "${expected}": it was forgotten since you read it. Read it again and retry.`,
    latest ? { existingId: latest.id } : {},
  );
}

/**
 * The row of a new record. An unkeyed one (a bulk import's) is built at once from the
 * validated input as `toRow` would make it of the record (the same fields in the same order,
 * so the same stored bytes: remember.test.ts), without the record and the copies of
 * `toRow`'s destructuring; a keyed one goes through `toRow`.
 */
export function newRow(value: PreparedRemember, id: string, hash: string): RecordRow {
  const { namespace, namespaceKey, createdAt } = value;
  const row: RecordRow = {
    id,
    namespace,
    namespaceKey,
    content: value.content,
    source: value.source,
    layer: value.layer,
    tags: value.tags,
    metadata: value.metadata,
    importance: value.importance,
    createdAt,
    updatedAt: createdAt,
    expiresAt: value.expiresAt,
    accessCount: 0,
    lastAccessedAt: null,
    contentHash: hash,
    version: 1,
    tier: 'hot',
    mergedFrom: [],
    ns: namespaceKey,
    userId: namespace.userId,
  };
  if (value.key === null) return row;
  return toRow({ ...fromRow(row), key: value.key, validFrom: value.validFrom, validUntil: value.statedUntil, closedBy: null, statedUntil: value.statedUntil });
}

function facts(row: RecordRow): { id: string; validFrom: number; statedUntil: number | null } {
  return { id: row.id, validFrom: row.validFrom ?? row.createdAt, statedUntil: row.statedUntil ?? null };
}

function key(a: string, b: string): string {
  return `${a}\u0000${b}`;
}

function uniqueKeys(pairs: Array<[string, string]> | string[][]): Array<[string, string]> {
  const seen = new Map<string, [string, string]>();
  for (const pair of pairs) seen.set(key(pair[0]!, pair[1]!), [pair[0]!, pair[1]!]);
  return [...seen.values()];
}
