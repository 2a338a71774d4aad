import { IssueList, checkId, describe } from '../model/checks.ts';
import { invalidInput } from '../model/errors.ts';
import { requireNamespace } from '../model/namespace.ts';
import type { MemoryRecord } from '../public/memory-record.ts';
import { fromRow, isExpired } from '../store/row.ts';
import { readOptions, type VerbContext } from '../write/verb-context.ts';
import type { LifecycleContext } from '../lifecycle/lifecycle-context.ts';
import { rewarmRead } from '../lifecycle/rewarm.ts';

/** Validates a record id argument; throws INVALID_INPUT. */
export function requireId(ctx: VerbContext, id: unknown): string {
  const issues = new IssueList();
  const checked = checkId(id, 'id', ctx.limits.maxIdLength, issues);
  if (checked === undefined) throw invalidInput('id', issues.items);
  return checked;
}

/**
 * The record with this id in this namespace, or `undefined` (also when it has expired).
 * Reading a cold record re-warms it unless `rewarm: false`.
 */
export async function get(ctx: LifecycleContext, namespace: unknown, id: unknown, options?: unknown): Promise<MemoryRecord | undefined> {
  const { rewarm = true } = readOptions(options, ['rewarm']);
  if (typeof rewarm !== 'boolean') throw invalidInput('options', [{ path: 'rewarm', message: `must be true or false, got ${describe(rewarm)}` }]);
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const recordId = requireId(ctx, id);
  const [row] = await ctx.store.read((tx) => tx.getRecords([[ns.key, recordId]]));
  const record = row && !isExpired(row, ctx.clock.now()) ? fromRow(row) : undefined;
  // `rewarm: false` reads without touching (sync, tools): only a use should keep a record hot.
  return rewarm ? rewarmRead(ctx, record) : record;
}
