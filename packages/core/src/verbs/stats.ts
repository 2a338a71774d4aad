import { Dexie } from 'dexie';
import { requireNamespace } from '../model/namespace.ts';
import { LAYERS, SOURCES, type Layer, type NamespaceStats, type Source } from '../model/types.ts';
import { utf8ByteLength } from '../model/utf8.ts';
import { isExpired } from '../store/row.ts';
import { withStorage } from '../store/storage-errors.ts';
import type { VerbContext } from '../write/context.ts';

/** Counts, sizes and time span of a namespace's live records, by source and layer. */
export async function stats(ctx: VerbContext, namespace: unknown): Promise<NamespaceStats> {
  const ns = requireNamespace(namespace, ctx.limits.maxNameLength);
  const now = ctx.clock.now();
  const result: NamespaceStats = {
    count: 0,
    bySource: Object.fromEntries(SOURCES.map((s) => [s, 0])) as Record<Source, number>,
    byLayer: Object.fromEntries(LAYERS.map((l) => [l, 0])) as Record<Layer, number>,
    contentBytes: 0,
    oldestCreatedAt: null,
    newestCreatedAt: null,
    expiredPendingSweep: 0,
  };
  await withStorage(() =>
    ctx.db.records
      .where('[ns+id]')
      .between([ns.key, Dexie.minKey], [ns.key, Dexie.maxKey])
      .each((row) => {
        if (isExpired(row, now)) {
          result.expiredPendingSweep++;
          return;
        }
        result.count++;
        result.bySource[row.source]++;
        result.byLayer[row.layer]++;
        result.contentBytes += utf8ByteLength(row.content);
        result.oldestCreatedAt = Math.min(result.oldestCreatedAt ?? row.createdAt, row.createdAt);
        result.newestCreatedAt = Math.max(result.newestCreatedAt ?? row.createdAt, row.createdAt);
      }),
  );
  return result;
}
