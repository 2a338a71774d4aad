import type { PreparedRemember } from '../model/validate-remember.ts';
import { keepHistory } from '../store/history.ts';
import { fromRow, toRow, type RecordRow } from '../store/row.ts';

/**
 * A duplicate keeps the stored record with the higher importance and the later expiry
 * (none beats any); the same row if nothing changes. `remember` and `importJsonl` share it.
 */
export function raiseOnDuplicate(row: RecordRow, value: Pick<PreparedRemember, 'importance' | 'expiresAt'>, now: number): RecordRow {
  const importance = Math.max(row.importance, value.importance);
  const expiresAt = row.expiresAt === null || value.expiresAt === null ? null : Math.max(row.expiresAt, value.expiresAt);
  if (importance === row.importance && expiresAt === row.expiresAt) return row;
  return keepHistory(toRow({ ...fromRow(row), importance, expiresAt, updatedAt: Math.max(now, row.updatedAt), version: row.version + 1 }), row);
}
