/**
 * The one-time migration of a store file of the releases before the SQLite engine (an
 * IndexedDB persisted to SQLite, idb-rows.ts: object stores' rows as keys and encoded
 * values in table `rows`) into this release's tables (sqlite-schema.ts), inside the
 * caller's write transaction: all or nothing. A process killed during it leaves the file
 * as it was (its WAL frames never committed), and the next open migrates it again from
 * the start.
 */
import type { AuditRow, StoredSnapshot, VectorRow } from '../../port.ts';
import type { RecordRow } from '../../row.ts';
import type { Connection } from '../sqlite-connection.ts';
import { RECORD_COLUMNS, auditColumns, recordColumns, snapshotBody } from '../sqlite-rows.ts';
import { putVectorRows } from '../sqlite-transactions.ts';
import { putSnapshotBody } from '../snapshot-pieces.ts';
import { FORMAT_VERSION } from '../sqlite-schema.ts';
import { eachValue, oldStores } from './idb-rows.ts';

/** How many rows are copied between two progress reports. */
const PROGRESS_EVERY = 1000;

/**
 * Copies every row of the old tables into the new ones, drops the old tables and sets the
 * format version. `progress` hears the rows copied so far and in all (sqlite-migration-progress.ts).
 */
export function migrateLegacyFile(writer: Connection, progress: (done: number, total: number) => void = () => {}): void {
  const total = writer.pluck('SELECT count(*) FROM rows').get() as number;
  let done = 0;
  for (const store of oldStores(writer.db)) {
    const copy = COPIERS[store.name];
    if (!copy) continue; // no other object store was ever written by a memory
    eachValue(writer.db, store, (value) => {
      copy(writer, value);
      if (++done % PROGRESS_EVERY === 0) progress(done, total);
    });
    if (store.name === 'audit') {
      // The key generator's number was never reused, also after the newest entries were deleted.
      const last = Math.max(store.keyGenerator, (writer.pluck('SELECT max(seq) FROM audit').get() as number | null) ?? 0);
      writer.statement("DELETE FROM sqlite_sequence WHERE name = 'audit'").run();
      writer.statement("INSERT INTO sqlite_sequence (name, seq) VALUES ('audit', ?)").run(last);
    }
  }
  progress(total, total);
  writer.db.exec('DROP TABLE rows; DROP TABLE IF EXISTS entries; DROP TABLE stores;');
  writer.statement("INSERT INTO meta (k, v) VALUES ('version', ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v").run(FORMAT_VERSION);
}

const COPIERS: Record<string, (writer: Connection, value: unknown) => void> = {
  records: (writer, value) => {
    writer.statement(`INSERT INTO records (${RECORD_COLUMNS}) VALUES (${RECORD_COLUMNS.split(',').map(() => '?').join(', ')})`).run(...recordColumns(value as RecordRow));
  },
  audit: (writer, value) => {
    const row = value as AuditRow;
    writer.statement('INSERT INTO audit (seq, ns, op, id, at, actor, rest) VALUES (?, ?, ?, ?, ?, ?, ?)').run(row.seq, ...auditColumns(row));
  },
  vectors: (writer, value) => putVectorRows(writer, [value as VectorRow]),
  indexSnapshots: (writer, value) => {
    const row = value as StoredSnapshot;
    putSnapshotBody(writer, row.ns, row.lastSeq, snapshotBody(row));
  },
};
