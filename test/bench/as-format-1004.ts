/**
 * A copy of a store of this release (format 1005) as the release before left a namespace
 * whose snapshot body it could not store (over the ~512 MiB better-sqlite3 binds): no
 * snapshot, format 1004. For base's side of a side-by-side run on one prepared store
 * (docs/benchmarks/2026-12-06-s12-vecfile.md); it changes the file it is given.
 *
 *   node --import tsx test/bench/as-format-1004.ts <copy>/bench.sqlite
 */
import Database from 'better-sqlite3';

const db = new Database(process.argv[2]!);
db.exec("DELETE FROM index_snapshots; DROP TABLE index_snapshot_pieces; UPDATE meta SET v = 1004 WHERE k = 'version'");
db.close();
