/**
 * Where an index snapshot's body (snapshot-body.ts) rests in the file: in its row of
 * `index_snapshots` when it fits one piece, else in pieces of `index_snapshot_pieces`
 * (format 1005), each well under the largest blob, written and read in one transaction.
 * The largest blob better-sqlite3 binds is 536,870,882 bytes (~512 MiB: SQLite's length
 * limit as better-sqlite3 builds it, measured; not the 1 GB of SQLite's default): a
 * 1M-memory namespace's body (820 MB with 128-d vectors) failed its INSERT, so it was never
 * stored and every open rebuilt the index from the rows (issue 32).
 *
 * A body in pieces leaves in `index_snapshots.body` only a header: a magic, the piece
 * count and the body's length. Read back, the pieces are checked against it (each there,
 * in order, adding up to the length): a piece missing or cut short makes the snapshot
 * absent, so the next open rebuilds rather than restoring a body that does not hang
 * together.
 */
import type { Connection } from './sqlite-connection.ts';

/**
 * The largest piece stored (256 MiB): half the largest blob bound. A body in pieces is
 * assembled into one buffer at read (a copy, and one piece beside it meanwhile), so a body
 * that fits one piece stays one row, read as before: up to ~300k memories with 128-d
 * vectors (100k: 82 MB). A 1M namespace's 820 MB is 4 pieces.
 */
export const SNAPSHOT_PIECE_BYTES = 256 * 2 ** 20;

/** First bytes of a header row (a body begins with `zeromem-index` or node:v8's 0xFF). */
const PIECES_MAGIC = Buffer.from('zeromem-pieces\u0000\u0001', 'latin1');
/** Magic, piece count (uint32 LE), body length (float64 LE: exact up to 2^53). */
const HEADER_BYTES = PIECES_MAGIC.length + 4 + 8;

/** Stores `body` as namespace `ns`'s snapshot up to `lastSeq`, replacing the one there (and its pieces). */
export function putSnapshotBody(connection: Connection, ns: string, lastSeq: number, body: Buffer, pieceBytes = SNAPSHOT_PIECE_BYTES): void {
  connection.statement('DELETE FROM index_snapshot_pieces WHERE ns = ?').run(ns);
  const put = connection.statement('INSERT OR REPLACE INTO index_snapshots (ns, last_seq, body) VALUES (?, ?, ?)');
  if (body.byteLength <= pieceBytes) {
    put.run(ns, lastSeq, body);
    return;
  }
  const count = Math.ceil(body.byteLength / pieceBytes);
  const header = Buffer.alloc(HEADER_BYTES);
  PIECES_MAGIC.copy(header, 0);
  header.writeUInt32LE(count, PIECES_MAGIC.length);
  header.writeDoubleLE(body.byteLength, PIECES_MAGIC.length + 4);
  put.run(ns, lastSeq, header);
  const piece = connection.statement('INSERT INTO index_snapshot_pieces (ns, piece, bytes) VALUES (?, ?, ?)');
  for (let i = 0; i < count; i++) piece.run(ns, i, body.subarray(i * pieceBytes, Math.min(body.byteLength, (i + 1) * pieceBytes)));
}

/** Namespace `ns`'s snapshot body and sequence number; undefined when none is stored or its pieces do not add up. */
export function getSnapshotBody(connection: Connection, ns: string): { lastSeq: number; body: Buffer } | undefined {
  const row = connection.raw('SELECT last_seq, body FROM index_snapshots WHERE ns = ?').get(ns) as [number, Buffer] | undefined;
  if (!row) return undefined;
  const [lastSeq, head] = row;
  if (head.byteLength !== HEADER_BYTES || !head.subarray(0, PIECES_MAGIC.length).equals(PIECES_MAGIC)) return { lastSeq, body: head };
  const count = head.readUInt32LE(PIECES_MAGIC.length);
  const length = head.readDoubleLE(PIECES_MAGIC.length + 4);
  if (!Number.isSafeInteger(length) || length < 0) return undefined;
  // One buffer of the whole body, each piece copied in as it is read: a piece at a time beside it, never all of them.
  const body = Buffer.allocUnsafe(length);
  let at = 0;
  let next = 0;
  for (const [piece, bytes] of connection.raw('SELECT piece, bytes FROM index_snapshot_pieces WHERE ns = ? ORDER BY piece').iterate(ns) as Iterable<[number, Buffer]>) {
    if (piece !== next++ || at + bytes.byteLength > length) return undefined;
    bytes.copy(body, at);
    at += bytes.byteLength;
  }
  return next === count && at === length ? { lastSeq, body } : undefined;
}

/** Deletes namespace (or heat row) key `ns`'s snapshot and its pieces; true when there was one. */
export function deleteSnapshotBody(connection: Connection, ns: string): boolean {
  connection.statement('DELETE FROM index_snapshot_pieces WHERE ns = ?').run(ns);
  return connection.statement('DELETE FROM index_snapshots WHERE ns = ?').run(ns).changes > 0;
}
