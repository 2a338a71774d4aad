import { IssueList, checkName } from '../model/checks.ts';
import { invalidInput } from '../model/errors.ts';
import { namespaceKey } from '../model/namespace.ts';
import { readOptions, resolveActor, type WriteContext } from '../write/verb-context.ts';
import { forgetRows } from '../write/forget-rows.ts';

/**
 * Deletes everything of a user: every namespace with this `userId`, whatever its agent
 * or scope. Returns how many records were deleted.
 */
export async function forgetUser(ctx: WriteContext, userId: unknown, options?: unknown): Promise<number> {
  const issues = new IssueList();
  const user = checkName(userId, 'userId', ctx.limits.maxNameLength, issues);
  if (user === undefined) throw invalidInput('userId', issues.items);
  const actor = resolveActor(ctx, readOptions(options, ['actor']));
  const prefix = namespaceKey({ userId: user });
  const { live, expired } = await forgetRows(
    ctx,
    actor,
    (tx) => tx.userRecords(user),
    () => (key) => key === prefix || key.startsWith(`${prefix};`),
  );
  return live.length + expired.length;
}
