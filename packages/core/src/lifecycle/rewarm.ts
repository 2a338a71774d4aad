import type { MemoryRecord, Namespace } from '../public/memory-record.ts';
import type { RecallResult } from '../public/recall.ts';
import type { LifecycleContext } from './lifecycle-context.ts';
import { touchRecords } from './touch.ts';

/** A recall's result with its cold hits re-warmed (when the recall counted as access), each hit showing its record after that. */
export async function rewarmHits(ctx: LifecycleContext, ns: { key: string; namespace: Namespace }, result: RecallResult, trackAccess: boolean): Promise<RecallResult> {
  const cold = result.hits.filter((hit) => hit.record.tier === 'cold');
  if (cold.length === 0 || !trackAccess) return result;
  const warm = new Map((await touchRecords(ctx, ns, cold.map((hit) => hit.id), false)).map((record) => [record.id, record]));
  return { ...result, hits: result.hits.map((hit) => ({ ...hit, record: warm.get(hit.id) ?? hit.record })) };
}

/** A record as `get` returns it: a cold one is re-warmed by the read. */
export async function rewarmRead(ctx: LifecycleContext, record: MemoryRecord | undefined): Promise<MemoryRecord | undefined> {
  if (record?.tier !== 'cold') return record;
  const [warm] = await touchRecords(ctx, { key: record.namespaceKey, namespace: record.namespace }, [record.id], false);
  return warm ?? record;
}
