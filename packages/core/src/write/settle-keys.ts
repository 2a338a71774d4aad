import { deriveIntervals } from '../model/validity.ts';
import type { WriteTransaction } from '../store/port.ts';
import type { RecordRow } from '../store/row.ts';

/** A namespace key and a fact key. */
export type FactKeyRef = readonly [ns: string, key: string];

/** The fact keys of these rows (unkeyed rows have none), each once. */
export function factKeysOf(rows: Iterable<{ ns: string; key?: string | null }>): FactKeyRef[] {
  const seen = new Map<string, FactKeyRef>();
  for (const row of rows) if (row.key) seen.set(`${row.ns}\u0000${row.key}`, [row.ns, row.key]);
  return [...seen.values()];
}

/**
 * Re-derives `validUntil` and `closedBy` of every version of these keys from the versions
 * stored now (model/validity.ts), inside the caller's write transaction, and writes
 * the rows whose interval changed. Every write that adds or removes a version calls it,
 * so what is stored is always the derivation of what is stored. Deriving is not a change
 * of the record: its version, `updatedAt` and audit log stay as they are (the write that
 * added or removed a version has its own audit entry). Returns every version, settled.
 * `known` gives a key's versions as the caller already holds them in this transaction
 * (stored and new, by `${ns}\u0000${key}`): they are not read again.
 */
export async function settleKeys(tx: WriteTransaction, keys: readonly FactKeyRef[], known?: ReadonlyMap<string, readonly RecordRow[]>): Promise<RecordRow[]> {
  const settled: RecordRow[] = [];
  const changed: RecordRow[] = [];
  for (const [ns, key] of keys) {
    const versions = known?.get(`${ns}\u0000${key}`) ?? (await tx.recordsByKey(ns, key));
    const derived = deriveIntervals(versions.map((row) => ({ id: row.id, validFrom: row.validFrom ?? row.createdAt, statedUntil: row.statedUntil ?? null })));
    for (const row of versions) {
      const interval = derived.get(row.id)!;
      if ((row.validUntil ?? null) === interval.validUntil && (row.closedBy ?? null) === interval.closedBy) {
        settled.push(row);
        continue;
      }
      const next = { ...row, ...interval };
      changed.push(next);
      settled.push(next);
    }
  }
  if (changed.length) await tx.putRecords(changed);
  return settled;
}
