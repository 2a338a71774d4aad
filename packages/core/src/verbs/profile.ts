import { IssueList, checkTime } from '../model/checks.ts';
import { invalidInput } from '../model/errors.ts';
import { requireNamespace } from '../model/namespace.ts';
import type { ProfileEntry } from '../public/profile.ts';
import { isValidAt } from '../model/validity.ts';
import { isExpired } from '../store/row.ts';
import { readOptions, type VerbContext } from '../write/verb-context.ts';

/**
 * The namespace's current keyed facts (at `asOf`, default now), one per key, sorted by
 * key. Versions never overlap in time, so at most one holds.
 */
export async function profile(ctx: VerbContext, namespace: unknown, options?: unknown): Promise<ProfileEntry[]> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const opts = readOptions(options, ['asOf']);
  const now = ctx.clock.now();
  const issues = new IssueList();
  const at = opts.asOf === undefined ? now : checkTime(opts.asOf, 'asOf', issues);
  if (at === undefined) throw invalidInput('options', issues.items);
  const rows = await ctx.store.read((tx) => tx.keyedRecords(ns.key));
  return rows
    .filter((row) => !isExpired(row, now) && isValidAt(row, at))
    .map((row) => ({ key: row.key!, content: row.content, id: row.id, validFrom: row.validFrom! }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
