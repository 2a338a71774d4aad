import { invalidInput } from '../model/errors.ts';
import { requireNamespace } from '../model/namespace.ts';
import type { AuditEntry } from '../public/audit.ts';
import { readOptions, type VerbContext } from '../write/verb-context.ts';

/**
 * The namespace's audit log, oldest first: every write, update, forget and expiry as
 * `{ seq, op, id, namespace, at, actor }`, never content. Page with `after` (a `seq`).
 */
export async function audit(ctx: VerbContext, namespace: unknown, options?: unknown): Promise<AuditEntry[]> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const opts = readOptions(options, ['after', 'limit']);
  const after = opts.after ?? 0;
  const limit = opts.limit ?? 1000;
  if (typeof after !== 'number' || !Number.isInteger(after) || after < 0) {
    throw invalidInput('options', [{ path: 'after', message: 'must be the seq of an earlier entry (a whole number, 0 or more)' }]);
  }
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 10_000) {
    throw invalidInput('options', [{ path: 'limit', message: 'must be a whole number from 1 to 10000' }]);
  }
  const rows = await ctx.store.read((tx) => tx.auditAfter(ns.key, after, { limit }));
  return rows.map((row) => ({ seq: row.seq!, op: row.op, id: row.id, namespace: row.namespace, at: row.at, actor: row.actor, ...(row.replicated ? { replicated: true as const } : {}), ...(row.redacted ? { redacted: row.redacted } : {}) }));
}
