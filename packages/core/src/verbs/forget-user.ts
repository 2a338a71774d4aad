import { IssueList, checkName } from '../model/checks.ts';
import { invalidInput } from '../model/errors.ts';
import { deleteRows } from '../store/delete-rows.ts';
import { isExpired } from '../store/row.ts';
import { withStorage } from '../store/storage-errors.ts';
import { readOptions, resolveActor, type VerbContext } from '../write/context.ts';

/**
 * Deletes everything of a user: every namespace with this `userId`, whatever its agent
 * or scope. Returns how many records were deleted.
 */
export async function forgetUser(ctx: VerbContext, userId: unknown, options?: unknown): Promise<number> {
  const issues = new IssueList();
  const user = checkName(userId, 'userId', ctx.limits.maxNameLength, issues);
  if (user === undefined) throw invalidInput('userId', issues.items);
  const actor = resolveActor(ctx, readOptions(options, ['actor']));
  const now = ctx.clock.now();
  const { db } = ctx;
  return withStorage(() =>
    db.transaction('rw', db.records, db.audit, db.vectors, db.indexSnapshots, async () => {
      const rows = await db.records.where('userId').equals(user).toArray();
      // Expired rows are logged as expiries, as sweep() and forget() log them.
      await deleteRows(db, rows.filter((row) => !isExpired(row, now)), 'forget', actor, now);
      await deleteRows(db, rows.filter((row) => isExpired(row, now)), 'expire', 'sweep', now);
      return rows.length;
    }),
  );
}
