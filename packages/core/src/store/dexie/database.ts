import { Dexie, type Table } from 'dexie';
import type { AuditRow, StoredSnapshot, VectorRow } from '../port.ts';
import { trimVector, untrimVector } from '../trimmed-vector.ts';
import type { RecordRow } from '../row.ts';
import type { DatabaseOptions } from '../../public/options.ts';

/**
 * The Dexie database: the source of truth on a device.
 * Schema history (append a version, never edit one):
 * - v1: records keyed by [ns+id]; dedupe index [ns+contentHash]; sort-key multi-entry
 *   indexes for ordered, tag-filtered pages; expiry indexes for TTL; audit log.
 * - v2: embeddings keyed by [model+hash]; records indexed by content hash.
 * - v3: one search-index snapshot per namespace, so an open restores instead of rebuilding.
 * - v4: records indexed by [ns+layer+time+id] for both order fields, so a list of one
 *   layer (the context's session turns) reads only that layer's rows.
 * - v5: records indexed by [ns+key], so the versions of a keyed fact (issue 24) are one
 *   lookup; rows without a key are not in it.
 * - v6: document logs (@zeromem/sync's shared documents, port.ts `DocLog`): `docUpdates`
 *   in append order by room, `docCursors` per room.
 * - v7: vectors trimmed ({@link StoredVectorRow}): an English vector of the bundled
 *   embedder holds its 128 values, not 512 zeros beside them; earlier rows are trimmed by
 *   the upgrade.
 */
export class MemoryDatabase extends Dexie {
  records!: Table<RecordRow, [string, string]>;
  audit!: Table<AuditRow, number>;
  vectors!: Table<StoredVectorRow, [string, string]>;
  indexSnapshots!: Table<StoredSnapshot, string>;
  docUpdates!: Table<DocUpdateRow, number>;
  docCursors!: Table<DocCursorRow, string>;

  constructor(name: string, options: DatabaseOptions = {}) {
    super(name, {
      ...(options.indexedDB ? { indexedDB: options.indexedDB } : {}),
      ...(options.IDBKeyRange ? { IDBKeyRange: options.IDBKeyRange } : {}),
      chromeTransactionDurability: options.durability ?? 'default',
    });
    // Dexie's liveQuery (behind watch()) silently does nothing unless Dexie found an
    // IndexedDB when it loaded (its server-side-rendering guard). Where the factory is
    // injected instead (Node, workers, tests) there was none: lend it this one.
    if (options.indexedDB && !Dexie.dependencies.indexedDB) {
      Dexie.dependencies.indexedDB = options.indexedDB;
      if (options.IDBKeyRange) Dexie.dependencies.IDBKeyRange = options.IDBKeyRange;
    }
    this.version(1).stores({
      records: '[ns+id], [ns+contentHash], userId, expiresAt, [ns+expiresAt], *byCreated, *byUpdated',
      audit: '++seq, [ns+seq]',
    });
    this.version(2).stores({
      records: '[ns+id], [ns+contentHash], contentHash, userId, expiresAt, [ns+expiresAt], *byCreated, *byUpdated',
      vectors: '[model+hash], hash',
    });
    this.version(3).stores({ indexSnapshots: 'ns' });
    this.version(4).stores({
      records:
        '[ns+id], [ns+contentHash], contentHash, userId, expiresAt, [ns+expiresAt], *byCreated, *byUpdated, [ns+layer+createdAt+id], [ns+layer+updatedAt+id]',
    });
    this.version(5).stores({
      records:
        '[ns+id], [ns+contentHash], contentHash, userId, expiresAt, [ns+expiresAt], *byCreated, *byUpdated, [ns+layer+createdAt+id], [ns+layer+updatedAt+id], [ns+key]',
    });
    this.version(6).stores({ docUpdates: '++seq, room', docCursors: 'room' });
    this.version(7)
      .stores({})
      .upgrade((tx) =>
        tx
          .table('vectors')
          .toCollection()
          .modify((row: VectorRow | StoredVectorRow) => {
            if (!('dimension' in row) && row.vector) Object.assign(row, storedVectorRow(row));
          }),
      );
  }
}

/** A {@link VectorRow} as the `vectors` table holds it (v7): `vector` trimmed (store/trimmed-vector.ts), with where it starts. */
export interface StoredVectorRow {
  model: string;
  hash: string;
  vector: Float32Array | null;
  dimension?: number;
  first?: number;
}

/** The row stored for a vector (the values copied: a view would be cloned with its whole buffer). */
export function storedVectorRow({ model, hash, vector }: VectorRow): StoredVectorRow {
  if (!vector) return { model, hash, vector: null };
  const { dimension, first, values } = trimVector(vector);
  return { model, hash, vector: values.slice(), dimension, first };
}

/** The vector row of a stored one (rows of v2-v6 hold the whole vector). */
export function vectorRowOf({ model, hash, vector, dimension, first }: StoredVectorRow): VectorRow {
  return { model, hash, vector: vector && dimension !== undefined ? untrimVector({ dimension, first: first ?? 0, values: vector }) : vector };
}

/** One update of a room's document log, numbered in append order. */
export interface DocUpdateRow {
  seq?: number;
  room: string;
  update: Uint8Array;
}

/** A room's document log cursor. */
export interface DocCursorRow {
  room: string;
  cursor: number;
}
