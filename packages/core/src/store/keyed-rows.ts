import { Dexie } from 'dexie';
import type { MemoryDatabase } from './database.ts';
import type { RecordRow } from './row.ts';

/**
 * The reads of keyed facts, through the [ns+key] index (unkeyed rows are not in it).
 * Every version of one key in a namespace, in no particular order.
 */
export function versionsOfKey(db: MemoryDatabase, ns: string, key: string): Promise<RecordRow[]> {
  return db.records.where('[ns+key]').equals([ns, key]).toArray();
}

/** Every version of every key in a namespace. */
export function keyedRows(db: MemoryDatabase, ns: string): Promise<RecordRow[]> {
  return db.records.where('[ns+key]').between([ns, Dexie.minKey], [ns, Dexie.maxKey]).toArray();
}
