import { invalidInput } from '../model/errors.ts';
import { requireNamespace } from '../model/namespace.ts';
import { validateFilter } from '../model/validate-filter.ts';
import { isEmptyFilter, matchesFilter } from '../store/match.ts';
import { readOptions, resolveActor, type WriteContext } from '../write/verb-context.ts';
import { forgetRows } from '../write/forget-rows.ts';

/**
 * Deletes every live record of the namespace that matches the filter, atomically, and
 * returns their ids. An empty filter is refused (use `forgetNamespace` to clear a namespace).
 */
export async function forgetWhere(ctx: WriteContext, namespace: unknown, filter: unknown, options?: unknown): Promise<string[]> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const prepared = validateFilter(filter, ctx.limits);
  if (isEmptyFilter(prepared)) {
    throw invalidInput('filter', [{ path: '', message: 'is empty; name what to forget, or call forgetNamespace() to forget everything in the namespace' }]);
  }
  const actor = resolveActor(ctx, readOptions(options, ['actor']));
  // Only live records match a filter.
  const { live } = await forgetRows(
    ctx,
    actor,
    async (tx, now) => (await tx.namespaceRecords(ns.key)).filter((row) => matchesFilter(row, prepared, now)),
    (deleted) => {
      const ids = new Set(deleted.live.map((row) => row.id));
      return (key, id) => key === ns.key && (id === undefined || ids.has(id));
    },
  );
  return live.map((row) => row.id);
}
