import { requireNamespace } from '../model/namespace.ts';
import { readOptions, resolveActor, type WriteContext } from '../write/verb-context.ts';
import { forgetRows } from '../write/forget-rows.ts';

/**
 * Deletes every record of exactly this namespace (not the narrower ones under it:
 * `{ userId }` does not include `{ userId, agentId }`). Returns how many were deleted.
 */
export async function forgetNamespace(ctx: WriteContext, namespace: unknown, options?: unknown): Promise<number> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const actor = resolveActor(ctx, readOptions(options, ['actor']));
  const { live, expired } = await forgetRows(
    ctx,
    actor,
    (tx) => tx.namespaceRecords(ns.key),
    () => (key) => key === ns.key,
  );
  return live.length + expired.length;
}
