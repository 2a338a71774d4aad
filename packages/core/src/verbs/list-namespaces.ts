import { Dexie } from 'dexie';
import { IssueList, checkName } from '../model/checks.ts';
import { invalidInput } from '../model/errors.ts';
import { namespaceKey } from '../model/namespace.ts';
import type { Namespace } from '../model/types.ts';
import type { MemoryDatabase } from '../store/database.ts';
import { withStorage } from '../store/storage-errors.ts';
import { readOptions, type VerbContext } from '../write/context.ts';

/**
 * The namespaces that hold records (of one user with `userId`), ordered by key. Records
 * past their expiry that `sweep()` has not deleted yet still count. One indexed read per
 * namespace: the scan jumps from one namespace's first key to the next.
 */
export async function listNamespaces(ctx: VerbContext, options?: unknown): Promise<Namespace[]> {
  const opts = readOptions(options, ['userId']);
  if (opts.userId === undefined) return withStorage(() => scan(ctx.db, '', '\uffff'));
  const issues = new IssueList();
  const userId = checkName(opts.userId, 'userId', ctx.limits.maxNameLength, issues);
  if (userId === undefined) throw invalidInput('options', issues.items);
  // A user's keys are `u=<id>` and `u=<id>;...`; keys of other users sort between them (`u=<id>%20`), so two ranges.
  const own = namespaceKey({ userId });
  return withStorage(async () => [...(await scan(ctx.db, own, own)), ...(await scan(ctx.db, `${own};`, `${own};\uffff`))]);
}

async function scan(db: MemoryDatabase, from: string, to: string): Promise<Namespace[]> {
  const found: Namespace[] = [];
  let lower: [string, unknown] = [from, Dexie.minKey];
  for (;;) {
    const row = await db.records.where('[ns+id]').between(lower, [to, Dexie.maxKey], true, true).first();
    if (!row) return found;
    found.push(row.namespace);
    lower = [row.ns, Dexie.maxKey];
  }
}
