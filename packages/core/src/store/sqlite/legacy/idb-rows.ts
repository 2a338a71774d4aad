/**
 * How the files of the releases before the SQLite engine stored values: an IndexedDB
 * persisted to SQLite (one file per database: tables `stores` with each object store's
 * schema, `rows` with its values). Only the one-time migrations read them (memory-file.ts:
 * a memory's file; sync-documents.ts: `<name>-sync.sqlite`, sync's documents); nothing
 * writes this format any more.
 */
import { deserialize } from 'node:v8';

/** An object store as the old file wrote it down (table `stores`, column `schema`, JSON). */
export interface StoredSchema {
  name: string;
  keyPath: string | string[] | null;
  autoIncrement: boolean;
  keyGenerator: number;
  indexes: Array<{ name: string; keyPath: string | string[]; multiEntry: boolean; unique: boolean }>;
}

/**
 * A stored value joined again. A value was split for its row: the top-level fields its
 * store's indexes read (`fields`, see {@link indexFields}) went to `ix` (an array in
 * `fields` order, JSON or node:v8 bytes) and the rest, JSON when JSON round-tripped it
 * exactly, node:v8 bytes otherwise (typed arrays), kept a placeholder where each of them was.
 */
export function decodeRow(fields: string[] | undefined, ix: string | Buffer | null, json: string | null, bytes: Buffer | null): unknown {
  const value = (json !== null ? JSON.parse(json) : deserialize(bytes!)) as Record<string, unknown>;
  if (ix === null || !fields) return value;
  const values = (typeof ix === 'string' ? JSON.parse(ix) : deserialize(ix)) as unknown[];
  for (let i = 0; i < fields.length; i++) if (Object.hasOwn(value, fields[i]!)) value[fields[i]!] = values[i];
  return value;
}

/** The fields the old writer put in `ix` for a store with these indexes (the first step of each key path); `undefined` when it put none. */
export function indexFields(indexes: StoredSchema['indexes']): string[] | undefined {
  if (indexes.length === 0) return undefined;
  const fields = new Set<string>();
  for (const index of indexes) {
    for (const path of Array.isArray(index.keyPath) ? index.keyPath : [index.keyPath]) {
      if (path === '') return undefined;
      fields.add(path.split('.')[0]!);
    }
  }
  return [...fields];
}

/** Rows read per query: no statement stays open while the rows are written elsewhere. */
const PAGE = 1000;

/** A better-sqlite3 database or connection: what {@link eachValue} needs of it. */
interface Queryable {
  prepare(sql: string): { raw(): { all(...params: unknown[]): unknown[] } };
}

/** Every object store of an old file: its row id in `stores`, name, key generator and the fields its values were split by. */
export function oldStores(db: Queryable): Array<{ id: number; name: string; keyGenerator: number; fields: string[] | undefined }> {
  const stores = db.prepare('SELECT id, name, schema, keyGenerator FROM stores').raw().all() as Array<[number, string, string, number]>;
  return stores.map(([id, name, schema, keyGenerator]) => ({ id, name, keyGenerator, fields: indexFields((JSON.parse(schema) as StoredSchema).indexes) }));
}

/** Every value of object store `store` of an old file, decoded, page by page in row order. */
export function eachValue(db: Queryable, store: { id: number; fields: string[] | undefined }, each: (value: unknown) => void): void {
  const page = db.prepare('SELECT rowid, ix, json, bytes FROM rows WHERE store = ? AND rowid > ? ORDER BY rowid LIMIT ?').raw();
  for (let after = 0; ; ) {
    const rows = page.all(store.id, after, PAGE) as Array<[number, string | Buffer | null, string | null, Buffer | null]>;
    for (const [, ix, json, bytes] of rows) each(decodeRow(store.fields, ix, json, bytes));
    if (rows.length < PAGE) return;
    after = rows.at(-1)![0];
  }
}
