import { IssueList, describe } from '../model/checks.ts';
import { invalidInput } from '../model/errors.ts';
import { requireNamespace } from '../model/namespace.ts';
import type { MemoryRecord } from '../public/memory-record.ts';
import { deleteRows } from '../store/delete-rows.ts';
import { withHistory } from '../store/history.ts';
import { fromRow, isExpired, toRow } from '../store/row.ts';
import { readOptions, resolveActor } from '../write/verb-context.ts';
import type { LifecycleContext } from './lifecycle-context.ts';
import { mergeRecords } from './merge-records.ts';
import { groupNearDuplicates, type Candidate } from './near-duplicates.ts';
import { suggestAmong } from './suggest-updates.ts';
import type { ConsolidateResult, ConsolidationGroup, ConsolidateSuggestion } from '../public/consolidate.ts';

/**
 * Default cosine threshold. Measured with the bundled `zeromem-static-en` model
 * (test/bench/consolidate-threshold.ts): rewordings of one fact score 0.71-1 (5 of 6 at
 * 0.8 or more), different facts on one topic 0.55-0.69, so 0.8 leaves a margin on the
 * side that deletes. A static (bag-of-words) model cannot tell word order: "prefers calls
 * over e-mail" and "prefers e-mail over calls" score 1 at any threshold.
 */
export const DEFAULT_CONSOLIDATE_THRESHOLD = 0.8;

/**
 * Merges near-duplicate records of one namespace (see `groupNearDuplicates`): the newest
 * member survives with the highest importance, the union of tags and `mergedFrom`; the
 * others are deleted with their vectors (audited as `merge`). With `dryRun: true` nothing
 * is written and the planned groups come back. Records without a stored vector for the
 * current model are compared by their loose text.
 */
export async function consolidate(ctx: LifecycleContext, namespace: unknown, options?: unknown): Promise<ConsolidateResult> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const opts = readOptions(options, ['threshold', 'dryRun', 'actor']);
  const actor = resolveActor(ctx, opts);
  const issues = new IssueList();
  if (opts.threshold !== undefined && !(typeof opts.threshold === 'number' && opts.threshold > 0 && opts.threshold <= 1)) {
    issues.add('threshold', `must be a cosine similarity above 0 and at most 1, got ${describe(opts.threshold)}`);
  }
  if (opts.dryRun !== undefined && typeof opts.dryRun !== 'boolean') issues.add('dryRun', 'must be a boolean');
  if (!issues.ok) throw invalidInput('consolidate options', issues.items);
  const threshold = (opts.threshold as number | undefined) ?? DEFAULT_CONSOLIDATE_THRESHOLD;
  const dryRun = opts.dryRun === true;

  const now = ctx.clock.now();
  const model = ctx.embedder?.modelId;
  const candidates = await ctx.store.read(async (tx) => {
    // Keyed facts are versions of a key, not duplicates: they are never merged.
    const rows = (await tx.namespaceRecords(ns.key)).filter((row) => !isExpired(row, now) && !row.key);
    const vectors = model ? await tx.getVectors(model, rows.map((row) => row.contentHash)) : [];
    return rows.map((row, i): Candidate => ({ record: fromRow(row), vector: vectors[i]?.vector }));
  });
  const planned = groupNearDuplicates(candidates, threshold).map((group): ConsolidationGroup & { versions: Map<string, number> } => {
    const { keep, merged, record } = mergeRecords(group.members, now, ctx.limits.maxTags);
    return {
      keepId: keep.id,
      mergedIds: merged.map((r) => r.id).reverse(),
      similarity: group.similarity,
      record,
      versions: new Map(group.members.map((r) => [r.id, r.version])),
    };
  });
  const strip = ({ versions: _versions, ...group }: ConsolidationGroup & { versions: Map<string, number> }): ConsolidationGroup => group;
  const suggestedUpdates = suggestAmong(
    candidates.map((c) => c.record),
    (i) => candidates[i]!.vector,
    threshold,
  );
  if (dryRun || planned.length === 0) return { dryRun, threshold, groups: planned.map(strip), skipped: [], suggestedUpdates };

  const outcome = await ctx.store.write(async (tx) => {
    const done: ConsolidationGroup[] = [];
    const skipped: ConsolidationGroup[] = [];
    for (const group of planned) {
      const ids = [...group.versions.keys()];
      const rows = await tx.getRecords(ids.map((id) => [ns.key, id] as const));
      // Planned outside this transaction: a member edited or gone since is not merged blindly.
      if (rows.some((row, i) => !row || isExpired(row, now) || row.version !== group.versions.get(ids[i]!))) {
        skipped.push(strip(group));
        continue;
      }
      // Merged again from the rows as they are now: access statistics, use and tier may have moved since planning.
      const { record } = mergeRecords(rows.map((row) => fromRow(row!)), now, ctx.limits.maxTags);
      const kept = rows.find((row) => row!.id === group.keepId)!;
      await tx.putRecords([withHistory(toRow(record), kept, actor, now, ctx.historyDepth)]);
      await tx.appendAudit([{ ns: ns.key, op: 'update', id: group.keepId, namespace: ns.namespace, at: now, actor }]);
      await deleteRows(tx, rows.filter((row) => row!.id !== group.keepId).map((row) => row!), 'merge', actor, now);
      done.push({ ...strip(group), record });
    }
    return { done, skipped };
  });
  await ctx.copies.purgeRecords(outcome.done.flatMap((group) => group.mergedIds.map((id) => ({ ns: ns.key, id }))));
  return { dryRun, threshold, groups: outcome.done, skipped: outcome.skipped, suggestedUpdates };
}
