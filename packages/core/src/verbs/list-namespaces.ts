import { IssueList, checkName } from '../model/checks.ts';
import { invalidInput } from '../model/errors.ts';
import { namespaceKey } from '../model/namespace.ts';
import type { Namespace } from '../public/memory-record.ts';
import type { ReadTransaction } from '../store/port.ts';
import { readOptions, type VerbContext } from '../write/verb-context.ts';

/**
 * The namespaces that hold records (of one user with `userId`), ordered by key. Records
 * past their expiry that `sweep()` has not deleted yet still count. One indexed read per
 * namespace: the scan jumps from one namespace's first key to the next.
 */
export async function listNamespaces(ctx: VerbContext, options?: unknown): Promise<Namespace[]> {
  const opts = readOptions(options, ['userId']);
  if (opts.userId === undefined) return ctx.store.read((tx) => scan(tx, '', '\uffff'));
  const issues = new IssueList();
  const userId = checkName(opts.userId, 'userId', ctx.limits.maxNameLength, issues);
  if (userId === undefined) throw invalidInput('options', issues.items);
  // A user's keys are `u=<id>` and `u=<id>;...`; keys of other users sort between them (`u=<id>%20`), so two ranges.
  const own = namespaceKey({ userId });
  return ctx.store.read(async (tx) => [...(await scan(tx, own, own)), ...(await scan(tx, `${own};`, `${own};\uffff`))]);
}

async function scan(tx: ReadTransaction, from: string, to: string): Promise<Namespace[]> {
  const found: Namespace[] = [];
  let range = { from, fromExclusive: false, to };
  for (;;) {
    const next = await tx.firstNamespace(range);
    if (!next) return found;
    found.push(next.namespace);
    range = { from: next.ns, fromExclusive: true, to };
  }
}
