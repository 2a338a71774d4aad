import { Dexie, type ObservabilitySet } from 'dexie';
import type { MemoryDatabase } from './database.ts';

/**
 * Calls `listener` after every committed write to the database's audit log (each write
 * verb appends to it): writes of this process, and in browsers those of other tabs too,
 * through Dexie's `storagemutated` event. Returns the function that stops it.
 */
export function onAuditWrites(db: MemoryDatabase, listener: () => void): () => void {
  const prefix = `idb://${db.name}/${db.audit.name}/`;
  const handler = (parts: ObservabilitySet): void => {
    if (Object.keys(parts).some((part) => part.startsWith(prefix))) listener();
  };
  Dexie.on('storagemutated', handler);
  return () => Dexie.on.storagemutated.unsubscribe(handler);
}
