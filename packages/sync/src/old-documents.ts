import type { DocLogAccess } from '@zeromem/core/internal';
import { Dexie } from 'dexie';

/**
 * Browsers (and any place with a global IndexedDB): the releases before the document logs
 * kept a memory's shared documents in an IndexedDB database of sync's own,
 * `<memory name>-sync` (Dexie: `updates` {seq, room, update}, `rooms` {room, cursor}).
 * When a room is shared, its documents move from there into the memory's own store, once:
 * copied when the memory's log of the room is still empty, then deleted from the old
 * database, which is deleted once no room is left in it. (In Node the memory's file takes
 * the old file in at open: core's store/sqlite/legacy/sync-documents.ts.)
 */
export async function moveOldDocuments(memoryName: string, room: string, log: DocLogAccess): Promise<void> {
  if (typeof indexedDB === 'undefined' || typeof indexedDB.databases !== 'function') return;
  const name = `${memoryName}-sync`;
  if (!(await indexedDB.databases()).some((database) => database.name === name)) return;
  const old = new Dexie(name);
  old.version(1).stores({ updates: '++seq, room', rooms: 'room' });
  let left: number;
  try {
    const updates = old.table<{ seq?: number; room: string; update: Uint8Array }, number>('updates');
    const rooms = old.table<{ room: string; cursor: number }, string>('rooms');
    const [rows, cursor] = await old.transaction('r', updates, rooms, async () => [await updates.where('room').equals(room).toArray(), (await rooms.get(room))?.cursor] as const);
    const current = await log.load(room);
    if (current.updates.length === 0 && current.cursor === undefined && (rows.length > 0 || cursor !== undefined)) {
      await log.append(room, rows.map((row) => row.update), cursor);
    }
    left = await old.transaction('rw', updates, rooms, async () => {
      await updates.where('room').equals(room).delete();
      await rooms.delete(room);
      return (await updates.count()) + (await rooms.count());
    });
  } finally {
    old.close();
  }
  if (left === 0) await Dexie.delete(name);
}
