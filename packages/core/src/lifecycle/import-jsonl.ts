import { contentHashes } from '../model/content-hash.ts';
import { turnTaker } from '../model/next-macrotask.ts';
import { IssueList, describe } from '../model/checks.ts';
import { probe } from '../model/read-input.ts';
import { ZeromemError, type LineFailure } from '../public/errors.ts';
import type { AuditRow } from '../store/port.ts';
import { deleteRows } from '../store/delete-rows.ts';
import { fromRow, isExpired, toRow, type RecordRow } from '../store/row.ts';
import { readOptions, resolveActor } from '../write/verb-context.ts';
import { raiseOnDuplicate } from '../write/duplicate.ts';
import { enforceQuota } from '../write/quota.ts';
import { factKeysOf, settleKeys } from '../write/settle-keys.ts';
import type { ExportHeader } from '../public/export-format.ts';
import { parseHeader, parseRecordLine, type ParsedLine } from './import-line.ts';
import type { LifecycleContext } from './lifecycle-context.ts';
import type { ImportResult } from '../public/import.ts';

interface Item extends ParsedLine {
  line: number;
}

/**
 * How many failed lines an import reports one by one: the first ones by line number; the
 * others are counted (`failed`, `details.failedLines`). A file of a million bad lines
 * otherwise made a report of over 100 MB (every line's issue), which a service then had
 * to serialize.
 */
export const MAX_REPORTED_LINES = 100;

/** The failed lines of an import: the first {@link MAX_REPORTED_LINES} by line number, and how many in all. */
class LineFailures {
  #kept: LineFailure[] = [];
  #count = 0;

  add(failure: LineFailure): void {
    this.#count++;
    this.#kept.push(failure);
    if (this.#kept.length >= 2 * MAX_REPORTED_LINES) this.#trim();
  }

  get count(): number {
    return this.#count;
  }

  /** The first failures, in line order. */
  first(): LineFailure[] {
    this.#trim();
    return [...this.#kept];
  }

  #trim(): void {
    this.#kept.sort((a, b) => a.line - b.line);
    if (this.#kept.length > MAX_REPORTED_LINES) this.#kept.length = MAX_REPORTED_LINES;
  }
}

/** Lines between two checks of whether the import has held the event loop long enough to give it up for a turn. */
const LINES_PER_CHECK = 512;

/**
 * Imports a zeromem JSONL export (a string, or an iterable or async iterable of its lines).
 * Every line is validated (and each content hash recomputed) before anything is written;
 * the write is one transaction. A bad line is INVALID_INPUT listing the first bad lines
 * by number in `details.lines` ({@link MAX_REPORTED_LINES} at most; `details.failedLines`
 * counts them all), and nothing is written; with `skipInvalid: true` the good lines are
 * written and the bad ones come back as `failures` and `failed`. Reading gives other work
 * a turn every ~10 ms. Memory: the parsed records of the valid lines (all are held until
 * the one transaction), a few times the size of their text; bad lines hold nothing
 * beyond the reported ones. Content already stored in
 * the namespace is deduplicated as `remember` does; an id holding other content is CONFLICT.
 * Records keep every field (id, times, version, access statistics, tier, provenance).
 * The imported records are queued for embedding (carried vectors of the current model are stored already).
 * @throws ZeromemError INVALID_INPUT, CONFLICT, QUOTA_EXCEEDED
 */
export async function importJsonl(
  ctx: LifecycleContext,
  source: unknown,
  options?: unknown,
): Promise<ImportResult> {
  const opts = readOptions(options, ['skipInvalid', 'actor']);
  const actor = resolveActor(ctx, opts);
  if (opts.skipInvalid !== undefined && typeof opts.skipInvalid !== 'boolean') {
    throw new ZeromemError('INVALID_INPUT', 'Invalid import options: skipInvalid: must be a boolean', { issues: [{ path: 'skipInvalid', message: 'must be a boolean' }] });
  }
  const skipInvalid = opts.skipInvalid === true;
  const failures = new LineFailures();
  const fail = (line: number, issues: IssueList | LineFailure['issues'], code: LineFailure['code'] = 'INVALID_INPUT') =>
    failures.add({ line, code, issues: Array.isArray(issues) ? issues : issues.items });
  const turn = turnTaker();

  let header: ExportHeader | undefined;
  const items: Item[] = [];
  let recordLines = 0;
  let number = 0;
  for await (const text of lines(source)) {
    number++;
    if (number % LINES_PER_CHECK === 0) await turn();
    if (number === 1) {
      const issues = new IssueList();
      header = parseHeader(text, ctx.limits, issues);
      if (!header) throw linesError([{ line: 1, code: 'INVALID_INPUT', issues: issues.items }], 'The first line is not a zeromem export header');
      continue;
    }
    if (text.trim() === '') continue;
    recordLines++;
    const issues = new IssueList();
    const parsed = parseRecordLine(text, header!, ctx.limits, issues);
    if (parsed) items.push({ ...parsed, line: number });
    else fail(number, issues);
  }
  if (!header) throw linesError([{ line: 1, code: 'INVALID_INPUT', issues: [{ path: '', message: 'the file is empty: it must start with a zeromem export header' }] }], 'Nothing to import');
  if (recordLines !== header.records) {
    fail(1, [{ path: 'records', message: `the header announces ${header.records} record lines, the file has ${recordLines}: it is truncated or spliced` }]);
  }
  const valid: Item[] = [];
  for (let start = 0; start < items.length; start += LINES_PER_CHECK) {
    const chunk = items.slice(start, start + LINES_PER_CHECK);
    const hashes = await contentHashes(chunk.map((item) => item.record.content));
    chunk.forEach((item, i) => {
      if (hashes[i] === item.record.contentHash) valid.push(item);
      else fail(item.line, [{ path: 'record.contentHash', message: 'does not match the content: the line was changed after export' }]);
    });
    await turn();
  }
  if (failures.count && !skipInvalid) throw linesError(failures, 'Invalid import');

  const now = ctx.clock.now();
  const live = valid.filter((item) => !isExpired(item.record, now));
  const written = await write(ctx, header, live, actor, now, skipInvalid);
  // The expired rows in the way, before the added records are queued (an id may come back).
  await ctx.copies.purgeRecords(written.deleted);
  ctx.copies.added(written.added);
  for (const conflict of written.conflicts) fail(conflict.line, conflict.issues, 'CONFLICT');
  const result = {
    imported: written.added.length,
    deduplicated: written.deduplicated,
    expired: valid.length - live.length,
    failures: failures.first(),
    failed: failures.count,
    ids: written.added.map((r) => r.id),
  };
  return result;
}

/**
 * The write transaction: dedupe against stored and in-file records, refuse ids holding
 * other content (CONFLICT aborts it unless `skipInvalid`), delete expired rows in the way,
 * enforce the quota, then add rows, raise duplicates, audit, and store carried vectors.
 */
async function write(ctx: LifecycleContext, header: ExportHeader, items: Item[], actor: string, now: number, skipInvalid: boolean) {
  return ctx.store.write(async (tx) => {
    const byId = new Map<string, RecordRow>();
    const byHash = new Map<string, RecordRow>();
    const added = new Map<string, RecordRow>();
    const raised = new Map<string, RecordRow>();
    const conflicts: Array<{ line: number; issues: LineFailure['issues'] }> = [];
    const vectorHashes = new Map<string, Float32Array | null>();
    const expired = new Map<string, RecordRow>();
    let deduplicated = 0;
    // Everything the file could collide with, read up front in a few requests, not two per line.
    const idKeys = unique(items.map((item) => [item.record.namespaceKey, item.record.id]));
    const stored = await tx.getRecords(idKeys);
    const storedById = new Map(idKeys.map((k, i) => [key(...k), stored[i]]));
    const hashKeys = unique(items.map((item) => [item.record.namespaceKey, item.record.contentHash]));
    const twins = new Map<string, RecordRow[]>();
    for (const row of await tx.recordsByContentHash(hashKeys)) {
      // Versions of a fact key are one by id only (a key may come back to an earlier value).
      if (row.key) continue;
      const group = twins.get(key(row.ns, row.contentHash));
      if (group) group.push(row);
      else twins.set(key(row.ns, row.contentHash), [row]);
    }
    // An expired twin may sit next to a live one: the live one wins.
    const storedByHash = new Map([...twins].map(([k, rows]) => [k, rows.find((row) => !isExpired(row, now)) ?? rows[0]]));
    for (const item of items) {
      const { record } = item;
      const ns = record.namespaceKey;
      const holder = lookup(byId, key(ns, record.id), storedById, now, expired);
      if (holder && holder.contentHash !== record.contentHash) {
        conflicts.push({ line: item.line, issues: [{ path: 'record.id', message: `a different memory already has id "${record.id}" in this namespace` }] });
        continue;
      }
      const twin = holder ?? (record.key === null ? lookup(byHash, key(ns, record.contentHash), storedByHash, now, expired) : undefined);
      if (item.vector !== undefined) vectorHashes.set(record.contentHash, item.vector);
      if (twin) {
        deduplicated++;
        const kept = raiseOnDuplicate(twin, record, now);
        if (kept !== twin) {
          byId.set(key(ns, kept.id), kept);
          byHash.set(key(ns, kept.contentHash), kept);
          (added.has(key(ns, kept.id)) ? added : raised).set(key(ns, kept.id), kept);
        }
        continue;
      }
      const row = toRow(record);
      added.set(key(ns, record.id), row);
      byId.set(key(ns, record.id), row);
      if (record.key === null) byHash.set(key(ns, record.contentHash), row);
    }
    if (conflicts.length && !skipInvalid) {
      const refused = new LineFailures();
      for (const conflict of conflicts) refused.add({ ...conflict, code: 'CONFLICT' });
      throw linesError(refused, 'Import conflicts with stored memories', 'CONFLICT');
    }
    // Expired rows found in the way are deleted first, as sweep() would.
    await deleteRows(tx, [...expired.values()], 'expire', 'sweep', now);
    await enforceQuota(ctx, tx, [...added.values()], now);
    await tx.putRecords([...added.values(), ...raised.values()]);
    const audit: AuditRow[] = [];
    for (const row of added.values()) audit.push({ ns: row.ns, op: 'remember', id: row.id, namespace: row.namespace, at: now, actor });
    for (const row of raised.values()) audit.push({ ns: row.ns, op: 'update', id: row.id, namespace: row.namespace, at: now, actor });
    await tx.appendAudit(audit);
    const settled = new Map((await settleKeys(tx, factKeysOf([...added.values(), ...expired.values()]))).map((row) => [row.id, row]));
    if (header.vectors && vectorHashes.size) {
      const model = header.vectors.model;
      const keys = [...vectorHashes.keys()];
      const stored = await tx.getVectors(model, keys);
      await tx.putVectors(keys.filter((_, i) => !stored[i]).map((hash) => ({ model, hash, vector: vectorHashes.get(hash)! })));
    }
    const deleted = [...expired.values()].map((row) => ({ ns: row.ns, id: row.id }));
    return { added: [...added.values()].map((row) => fromRow(settled.get(row.id) ?? row)), deduplicated, conflicts, deleted };
  });
}

/** A record from the in-file map, or else the stored one; an expired one counts as absent and goes to `expired` (deleted before writing). */
function lookup(seen: Map<string, RecordRow>, k: string, stored: Map<string, RecordRow | undefined>, now: number, expired: Map<string, RecordRow>): RecordRow | undefined {
  const row = seen.get(k) ?? stored.get(k);
  if (!row) return undefined;
  if (isExpired(row, now)) {
    expired.set(key(row.ns, row.id), row);
    return undefined;
  }
  seen.set(k, row);
  return row;
}

function key(ns: string, part: string): string {
  return `${ns}\u0000${part}`;
}

function unique(pairs: Array<[string, string]>): Array<[string, string]> {
  return [...new Map(pairs.map((pair) => [key(...pair), pair])).values()];
}

function linesError(failures: LineFailure[] | LineFailures, what: string, code: 'INVALID_INPUT' | 'CONFLICT' = 'INVALID_INPUT'): ZeromemError {
  const lines = Array.isArray(failures) ? failures : failures.first();
  const total = Array.isArray(failures) ? failures.length : failures.count;
  const first = lines[0]!;
  const issue = first.issues[0];
  const detail = issue ? `${issue.path ? `${issue.path}: ` : ''}${issue.message}` : first.code;
  const count = total === 1 ? 'line' : `${total} lines, first`;
  return new ZeromemError(code, `${what} (${count} at line ${first.line}: ${detail}); nothing was imported. Fix the file, or pass { skipInvalid: true } to import the good lines.`, {
    lines,
    ...(total > lines.length ? { failedLines: total } : {}),
  });
}

/** The lines of the source: a string split at newlines, or the items of an (async) iterable of lines. */
async function* lines(source: unknown): AsyncGenerator<string> {
  if (typeof source === 'string') {
    // One line at a time: a split would hold a string per line of the whole text at once.
    for (let start = 0; start < source.length; ) {
      const newline = source.indexOf('\n', start);
      const end = newline === -1 ? source.length : newline;
      yield source.charCodeAt(end - 1) === 13 && end > start ? source.slice(start, end - 1) : source.slice(start, end);
      start = end + 1;
    }
    return;
  }
  const iterable = source as { [Symbol.asyncIterator]?: unknown; [Symbol.iterator]?: unknown } | null;
  if (typeof iterable !== 'object' || iterable === null || !probe(() => typeof iterable[Symbol.asyncIterator] === 'function' || typeof iterable[Symbol.iterator] === 'function')) {
    throw new ZeromemError('INVALID_INPUT', `Invalid import source: must be the JSONL text or an iterable of its lines, got ${describe(source)}`, {
      issues: [{ path: '', message: 'must be a string or an iterable of strings' }],
    });
  }
  let number = 0;
  const iterator = iterate(source as AsyncIterable<unknown>);
  for (;;) {
    let next: IteratorResult<unknown>;
    try {
      next = await iterator.next();
    } catch (err) {
      // Nothing is written before every line is read: a source that fails to read is bad input.
      const message = err instanceof Error ? err.message : String(err);
      throw new ZeromemError('INVALID_INPUT', `Invalid import source: reading line ${number + 1} failed (${message}); nothing was imported.`, {
        lines: [{ line: number + 1, code: 'INVALID_INPUT', issues: [{ path: '', message: 'could not be read from the source' }] }],
        cause: err,
      });
    }
    if (next.done) return;
    number++;
    const line = next.value;
    if (typeof line !== 'string') {
      throw new ZeromemError('INVALID_INPUT', `Invalid import source: line ${number} is ${describe(line)}, not a string`, {
        lines: [{ line: number, code: 'INVALID_INPUT', issues: [{ path: '', message: 'must be a string' }] }],
      });
    }
    yield line;
  }
}

async function* iterate(source: AsyncIterable<unknown>): AsyncGenerator<unknown> {
  yield* source;
}
