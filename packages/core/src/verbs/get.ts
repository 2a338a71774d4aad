import { IssueList, checkId } from '../model/checks.ts';
import { invalidInput } from '../model/errors.ts';
import { requireNamespace } from '../model/namespace.ts';
import type { MemoryRecord } from '../model/types.ts';
import { fromRow, isExpired } from '../store/row.ts';
import type { VerbContext } from '../write/context.ts';

/** Options of `get(namespace, id, options)`. */
export interface GetOptions {
  /** Reading a cold record re-warms it. Default true; `false` reads without touching (sync, tools). */
  rewarm?: boolean;
}

/** Validates a record id argument; throws INVALID_INPUT. */
export function requireId(ctx: VerbContext, id: unknown): string {
  const issues = new IssueList();
  const checked = checkId(id, 'id', ctx.limits.maxIdLength, issues);
  if (checked === undefined) throw invalidInput('id', issues.items);
  return checked;
}

/** The record with this id in this namespace, or `undefined` (also when it has expired). */
export async function get(ctx: VerbContext, namespace: unknown, id: unknown): Promise<MemoryRecord | undefined> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const recordId = requireId(ctx, id);
  const [row] = await ctx.store.read((tx) => tx.getRecords([[ns.key, recordId]]));
  return row && !isExpired(row, ctx.clock.now()) ? fromRow(row) : undefined;
}
