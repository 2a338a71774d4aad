import type { AuditOp } from '../public/audit.ts';
import type { WriteTransaction } from './port.ts';
import type { RecordRow } from './row.ts';

/**
 * Deletes rows and logs one audit entry each, inside the caller's transaction. Deleting
 * the row removes its content, hash and every index entry with it; its embedding goes too
 * once no record has that content, and its namespace's index snapshot goes with it.
 */
export async function deleteRows(tx: WriteTransaction, rows: RecordRow[], op: AuditOp, actor: string, at: number): Promise<void> {
  if (rows.length === 0) return;
  await tx.deleteRecords(rows.map((row) => [row.ns, row.id] as const));
  await tx.appendAudit(rows.map((row) => ({ ns: row.ns, op, id: row.id, namespace: row.namespace, at, actor })));
  await dropOrphanVectors(tx, rows.map((row) => row.contentHash));
  await tx.deleteSnapshots(rows.map((row) => row.ns));
}

/**
 * Deletes the stored embeddings (of every model) of these content hashes when no record
 * holds that content any more. An embedding can give its text away, so it goes with it.
 */
export async function dropOrphanVectors(tx: WriteTransaction, hashes: Iterable<string>): Promise<void> {
  const unique = [...new Set(hashes)];
  const held = await tx.contentHashesInUse(unique);
  for (const hash of unique) if (!held.has(hash)) await tx.deleteVectors(hash);
}
