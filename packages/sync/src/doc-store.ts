import { Dexie, type Table } from 'dexie';
import * as Y from 'yjs';

/** One stored Yjs update of a room. */
interface UpdateRow {
  seq?: number;
  room: string;
  update: Uint8Array;
}

/** Per room: how far the local audit log has been shared. */
interface RoomRow {
  room: string;
  /** The last audit seq of the namespace whose change is in the stored document. */
  cursor: number;
}

/** Options to reach IndexedDB (the same as `openMemory`'s). */
export interface StorageOptions {
  /** The IndexedDB factory (fake-indexeddb in Node). Default: the global `indexedDB`. */
  indexedDB?: IDBFactory;
  /** The IDBKeyRange of that factory. Default: the global `IDBKeyRange`. */
  IDBKeyRange?: typeof IDBKeyRange;
}

/**
 * The local copy of shared documents: a Dexie database of its own (`<memory name>-sync`),
 * never core's tables. Updates are appended as they happen and folded into one on
 * compaction, which also drops the bytes of forgotten content (Yjs gc).
 */
export class DocStore extends Dexie {
  updates!: Table<UpdateRow, number>;
  rooms!: Table<RoomRow, string>;

  constructor(name: string, options: StorageOptions) {
    super(name, {
      ...(options.indexedDB ? { indexedDB: options.indexedDB } : {}),
      ...(options.IDBKeyRange ? { IDBKeyRange: options.IDBKeyRange } : {}),
    });
    this.version(1).stores({ updates: '++seq, room', rooms: 'room' });
  }

  /** Applies the stored updates of `room` to `doc`; returns the cursor, or undefined for a room never shared here. */
  async load(room: string, doc: Y.Doc, origin: unknown): Promise<{ cursor: number | undefined }> {
    return this.transaction('r', this.updates, this.rooms, async () => {
      const rows = await this.updates.where('room').equals(room).toArray();
      Y.transact(doc, () => {
        for (const row of rows) Y.applyUpdate(doc, row.update);
      }, origin);
      return { cursor: (await this.rooms.get(room))?.cursor };
    });
  }

  /** Appends updates and, when given, moves the cursor, in one transaction. */
  async append(room: string, updates: Uint8Array[], cursor: number | undefined): Promise<number> {
    return this.transaction('rw', this.updates, this.rooms, async () => {
      if (updates.length) await this.updates.bulkAdd(updates.map((update) => ({ room, update })));
      if (cursor !== undefined) await this.rooms.put({ room, cursor });
      return this.updates.where('room').equals(room).count();
    });
  }

  /** Replaces the room's updates with one encoding of `doc` (whose gc dropped deleted content). */
  async compact(room: string, doc: Y.Doc): Promise<void> {
    const state = Y.encodeStateAsUpdate(doc);
    await this.transaction('rw', this.updates, async () => {
      await this.updates.where('room').equals(room).delete();
      await this.updates.add({ room, update: state });
    });
  }
}
