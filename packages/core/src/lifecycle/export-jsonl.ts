import { IssueList, checkKnownKeys, checkName, describe, isPlainObject } from '../model/checks.ts';
import { invalidInput } from '../model/errors.ts';
import { ZeromemError } from '../public/errors.ts';
import { requireNamespace, type ResolvedNamespace } from '../model/namespace.ts';
import { fromRow, isExpired, type RecordRow } from '../store/row.ts';
import { readOptions } from '../write/verb-context.ts';
import { encodeVector } from './jsonl-format.ts';
import { EXPORT_FORMAT, EXPORT_VERSION, type ExportHeader, type ExportLine } from '../public/export-format.ts';
import type { LifecycleContext } from './lifecycle-context.ts';

/**
 * Exports a namespace (`{ namespace }`) or all of a user's namespaces (`{ userId }`) as
 * versioned JSONL: a header line, then one line per live record in key order, read in one
 * transaction (a consistent snapshot). `vectors: true` adds the current embedder's
 * vectors. Nothing is cached: the text exists only in what this returns.
 * @throws ZeromemError NAMESPACE_REQUIRED, INVALID_INPUT (also `vectors: true` without an embedder)
 */
export async function exportJsonl(ctx: LifecycleContext, scope: unknown, options?: unknown): Promise<string> {
  const target = checkScope(ctx, scope);
  const opts = readOptions(options, ['vectors']);
  if (opts.vectors !== undefined && typeof opts.vectors !== 'boolean') throw invalidInput('export options', [{ path: 'vectors', message: 'must be a boolean' }]);
  const embedder = opts.vectors === true ? ctx.embedder : undefined;
  if (opts.vectors === true && !embedder) {
    throw invalidInput('export options', [{ path: 'vectors', message: 'needs an embedder: open the memory with the embedder whose vectors to export' }]);
  }
  const now = ctx.clock.now();
  const { rows, vectors } = await ctx.store.read(async (tx) => {
    const all = 'namespace' in target ? await tx.namespaceRecords(target.key) : await tx.userRecords(target.userId);
    const rows = all.filter((row) => !isExpired(row, now)).sort(byKey);
    const vectors = embedder ? await tx.getVectors(embedder.modelId, rows.map((row) => row.contentHash)) : [];
    return { rows, vectors };
  });
  const header: ExportHeader = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: now,
    scope: 'namespace' in target ? { namespace: target.namespace } : { userId: target.userId },
    records: rows.length,
    vectors: embedder ? { model: embedder.modelId, dimension: embedder.dimension } : null,
  };
  const lines = [JSON.stringify(header)];
  rows.forEach((row, i) => {
    const line: ExportLine = { record: fromRow(row) };
    const stored = vectors[i];
    if (stored) line.vector = stored.vector ? encodeVector(stored.vector) : null;
    lines.push(JSON.stringify(line));
  });
  return `${lines.join('\n')}\n`;
}

function byKey(a: RecordRow, b: RecordRow): number {
  return a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** `{ namespace }` or `{ userId }`, validated. */
function checkScope(ctx: LifecycleContext, scope: unknown): ResolvedNamespace | { userId: string } {
  if (scope === undefined || scope === null || (isPlainObject(scope) && scope.namespace === undefined && scope.userId === undefined)) {
    throw new ZeromemError('NAMESPACE_REQUIRED', `Say what to export: { namespace } or { userId }, got ${describe(scope)}.`);
  }
  if (!isPlainObject(scope)) throw invalidInput('export scope', [{ path: '', message: `must be { namespace } or { userId }, got ${describe(scope)}` }]);
  const issues = new IssueList();
  checkKnownKeys(scope, ['namespace', 'userId'], '', issues);
  if (scope.namespace !== undefined && scope.userId !== undefined) issues.add('', 'give either namespace or userId, not both');
  if (!issues.ok) throw invalidInput('export scope', issues.items);
  if (scope.namespace !== undefined) return requireNamespace(scope.namespace, ctx.limits.maxNameLength);
  const userId = checkName(scope.userId, 'userId', ctx.limits.maxNameLength, issues);
  if (userId === undefined) throw invalidInput('export scope', issues.items);
  return { userId };
}
