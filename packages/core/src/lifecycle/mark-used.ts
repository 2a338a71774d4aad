import { IssueList, checkId, describe, join } from '../model/checks.ts';
import { invalidInput } from '../model/errors.ts';
import { requireNamespace } from '../model/namespace.ts';
import type { MemoryRecord } from '../public/memory-record.ts';
import type { LifecycleContext } from './lifecycle-context.ts';
import { touchRecords } from './touch.ts';

/** Most ids one `markUsed` call takes. */
const MAX_IDS = 1000;

/**
 * Says that these records were used (e.g. recalled and put into the prompt): each gains
 * importance (`useGain` of the distance to 1), becomes hot and counts as touched now.
 * Ids that are not (or no longer) there are skipped. Returns the updated records.
 * Unlike `countAccess` (verbs/count-access.ts), which only counts an access (heat) for
 * recall hits and built contexts, this changes importance: the caller says it was useful.
 */
export async function markUsed(ctx: LifecycleContext, namespace: unknown, ids: unknown): Promise<MemoryRecord[]> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const issues = new IssueList();
  const checked: string[] = [];
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > MAX_IDS) {
    issues.add('ids', `must be an array of 1 to ${MAX_IDS} record ids, got ${describe(ids)}`);
  } else {
    ids.forEach((id: unknown, i) => {
      const ok = checkId(id, join('ids', i), ctx.limits.maxIdLength, issues);
      if (ok !== undefined) checked.push(ok);
    });
  }
  if (!issues.ok) throw invalidInput('markUsed', issues.items);
  return touchRecords(ctx, ns, checked, true);
}
