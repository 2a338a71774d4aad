import type { WriteTransaction } from '../store/port.ts';
import type { RecordRow } from '../store/row.ts';
import type { LifecycleContext } from './lifecycle-context.ts';

/**
 * For changes written without an audit entry (importance aging, use): deletes the stored
 * index snapshot of every namespace among `rows` whose index is not loaded, inside the
 * caller's transaction. A catch-up cannot see such
 * changes, so that snapshot would bring the old values back on the next open; a loaded
 * index gets them through `IndexManager.refresh` and rewrites its snapshot later.
 */
export async function dropUnloadedSnapshots(ctx: LifecycleContext, tx: WriteTransaction, rows: readonly RecordRow[]): Promise<void> {
  const stale = new Set(rows.map((row) => row.ns).filter((ns) => !ctx.indexes.loaded(ns)));
  if (stale.size) await tx.deleteSnapshots(stale);
}
