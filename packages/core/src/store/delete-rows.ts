import type { AuditOp } from '../model/types.ts';
import type { MemoryDatabase } from './database.ts';
import type { RecordRow } from './row.ts';

/**
 * Deletes rows and logs one audit entry each, inside the caller's transaction.
 * Deleting the row removes its content, hash and every index entry with it.
 */
export async function deleteRows(db: MemoryDatabase, rows: RecordRow[], op: AuditOp, actor: string, at: number): Promise<void> {
  if (rows.length === 0) return;
  await db.records.bulkDelete(rows.map((row) => [row.ns, row.id] as [string, string]));
  await db.audit.bulkAdd(rows.map((row) => ({ ns: row.ns, op, id: row.id, namespace: row.namespace, at, actor })));
}
