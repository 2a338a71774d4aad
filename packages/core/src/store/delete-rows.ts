import type { AuditOp } from '../model/types.ts';
import { dropIndexSnapshots, type MemoryDatabase } from './database.ts';
import type { RecordRow } from './row.ts';

/**
 * Deletes rows and logs one audit entry each, inside the caller's transaction (which
 * must include records, audit, vectors and indexSnapshots). Deleting the row removes its
 * content, hash and every index entry with it; its embedding goes too once no record has
 * that content, and its namespace's index snapshot goes with it.
 */
export async function deleteRows(db: MemoryDatabase, rows: RecordRow[], op: AuditOp, actor: string, at: number): Promise<void> {
  if (rows.length === 0) return;
  await db.records.bulkDelete(rows.map((row) => [row.ns, row.id] as [string, string]));
  await db.audit.bulkAdd(rows.map((row) => ({ ns: row.ns, op, id: row.id, namespace: row.namespace, at, actor })));
  await dropOrphanVectors(db, rows.map((row) => row.contentHash));
  await dropIndexSnapshots(db, rows.map((row) => row.ns));
}

/**
 * Deletes the stored embeddings (of every model) of these content hashes when no record
 * holds that content any more. An embedding can give its text away, so it goes with it.
 */
export async function dropOrphanVectors(db: MemoryDatabase, hashes: Iterable<string>): Promise<void> {
  for (const hash of new Set(hashes)) {
    if ((await db.records.where('contentHash').equals(hash).count()) === 0) {
      await db.vectors.where('hash').equals(hash).delete();
    }
  }
}
