import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { auditOf, hashOfKey, recordOf, snapshotOf, vectorOf, RECORD_COLUMNS, type RecordColumns } from '../src/store/sqlite/sqlite-rows.ts';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

/**
 * Every row of a SQLite store (sqlite-engine.ts) as the port hands them out, by the object
 * store names the Dexie engine has: what the tests' `stores()` reads on disk.
 */
export function readSqliteStore(path: string): Record<string, unknown[]> {
  const db = new Database(path, { readonly: true });
  try {
    return {
      records: (db.prepare(`SELECT ${RECORD_COLUMNS} FROM records ORDER BY ns, id`).raw().all() as RecordColumns[]).map(recordOf),
      audit: (db.prepare('SELECT seq, ns, op, id, at, actor, rest FROM audit ORDER BY seq').raw().all() as Array<[number, string, string, string, number, string, string]>).map(auditOf),
      vectors: (db.prepare('SELECT m.name, v.hash, v.vector FROM vectors v JOIN vector_models m ON m.id = v.model ORDER BY m.name, v.hash').raw().all() as Array<[string, Buffer | string, Buffer | null]>).map(
        ([model, hash, blob]) => vectorOf(model, hashOfKey(hash), blob),
      ),
      indexSnapshots: (db.prepare('SELECT ns, last_seq, body FROM index_snapshots ORDER BY ns').raw().all() as Array<[string, number, Buffer]>).map(([ns, lastSeq, body]) => snapshotOf(ns, lastSeq, body)),
      docUpdates: (db.prepare('SELECT seq, room, body FROM doc_updates ORDER BY seq').raw().all() as Array<[number, string, Buffer]>).map(([seq, room, body]) => ({ seq, room, update: new Uint8Array(body) })),
      docCursors: db.prepare('SELECT room, cursor FROM doc_cursors ORDER BY room').all(),
    };
  } finally {
    db.close();
  }
}

/** Every row of one table of a SQLite store, as objects. */
export function readSqliteTable(path: string, table: string): unknown[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(`SELECT * FROM ${table}`).all();
  } finally {
    db.close();
  }
}
