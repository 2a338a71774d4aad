/**
 * Rows of the SQLite engine's tables (sqlite-schema.ts) to and from the port's values:
 * queried fields in columns, the rest as JSON (records, audit) or, for index snapshots
 * (which hold typed arrays), their arrays after node:v8 bytes of the rest (snapshot-body.ts).
 * A value read back equals the value written.
 */
import type { AuditRow, StoredSnapshot, VectorRow } from '../port.ts';
import type { RecordRow } from '../row.ts';
import { trimVector, untrimVector } from '../trimmed-vector.ts';
import { decodeSnapshotBody, encodeSnapshotBody } from './snapshot-body.ts';

/** The columns of `records` in the order {@link RECORD_COLUMNS} lists them, as better-sqlite3 hands them out (`raw()`). */
export type RecordColumns = [
  ns: string,
  id: string,
  userId: string,
  layer: string,
  createdAt: number,
  updatedAt: number,
  expiresAt: number | null,
  contentHash: string,
  key: string | null,
  validFrom: number | null,
  validUntil: number | null,
  closedBy: string | null,
  content: string,
  tags: string,
  rest: string,
];

/** The column list of every record read and write, in {@link RecordColumns} order. */
export const RECORD_COLUMNS = 'ns, id, user_id, layer, created_at, updated_at, expires_at, content_hash, fact_key, valid_from, valid_until, closed_by, content, tags, rest';

/**
 * Fields kept in a column of their own (so not in `rest`): the value, or `null` both for
 * `null` and for a field the row lacks. A `null` value also stays in `rest`, so absent and
 * `null` read back as they were written.
 */
const NULLABLE_COLUMNS = ['expiresAt', 'key', 'validFrom', 'validUntil', 'closedBy'] as const;

/** Fields derived from others (the namespace key twice, the user of the namespace) or index fields another engine keeps: never stored. */
const DERIVED = new Set(['ns', 'namespaceKey', 'userId', 'byCreated', 'byUpdated']);
const IN_COLUMNS = new Set(['id', 'layer', 'createdAt', 'updatedAt', 'contentHash', 'content', 'tags', ...NULLABLE_COLUMNS]);

/** A row's values in {@link RecordColumns} order. */
export function recordColumns(row: RecordRow): RecordColumns {
  const rest: Record<string, unknown> = {};
  for (const field in row) {
    if (DERIVED.has(field)) continue;
    const value = (row as unknown as Record<string, unknown>)[field];
    if (value === undefined) continue;
    if (IN_COLUMNS.has(field) && value !== null) continue;
    rest[field] = value;
  }
  return [
    row.namespaceKey,
    row.id,
    row.namespace.userId,
    row.layer,
    row.createdAt,
    row.updatedAt,
    row.expiresAt ?? null,
    row.contentHash,
    row.key ?? null,
    row.validFrom ?? null,
    row.validUntil ?? null,
    row.closedBy ?? null,
    row.content,
    JSON.stringify(row.tags),
    JSON.stringify(rest),
  ];
}

/** The row {@link recordColumns} stored. */
export function recordOf(columns: RecordColumns): RecordRow {
  const [ns, id, userId, layer, createdAt, updatedAt, expiresAt, contentHash, key, validFrom, validUntil, closedBy, content, tags, rest] = columns;
  const row = JSON.parse(rest) as RecordRow;
  row.id = id;
  row.ns = ns;
  row.namespaceKey = ns;
  row.userId = userId;
  row.layer = layer as RecordRow['layer'];
  row.createdAt = createdAt;
  row.updatedAt = updatedAt;
  row.contentHash = contentHash;
  row.content = content;
  row.tags = JSON.parse(tags) as string[];
  // expiresAt is never absent; the others only on keyed facts.
  if (expiresAt !== null || !('expiresAt' in row)) row.expiresAt = expiresAt;
  if (key !== null) row.key = key;
  if (validFrom !== null) row.validFrom = validFrom;
  if (validUntil !== null) row.validUntil = validUntil;
  if (closedBy !== null) row.closedBy = closedBy;
  return row;
}

/** The columns of `audit` for a row: ns, op, id, at, actor, rest (JSON of the others). `seq` is given by the table. */
export function auditColumns(row: AuditRow): [string, string, string, number, string, string] {
  const { seq: _given, ns, op, id, at, actor, ...rest } = row;
  return [ns, op, id, at, actor, JSON.stringify(rest)];
}

/** The audit row of `audit`'s columns (seq, ns, op, id, at, actor, rest). */
export function auditOf([seq, ns, op, id, at, actor, rest]: [number, string, string, string, number, string, string]): AuditRow {
  return { seq, ns, op: op as AuditRow['op'], id, ...(JSON.parse(rest) as Omit<AuditRow, 'seq' | 'ns' | 'op' | 'id' | 'at' | 'actor'>), at, actor };
}

const HEX_HASH = /^[0-9a-f]{64}$/;

/**
 * A content hash as `vectors` keys it: a SHA-256 in lower-case hex (every content hash this
 * library makes) as its 32 bytes, anything else as the text it is (SQLite never finds a
 * text equal to a blob, so the two cannot meet). Half the bytes, in each row and index entry.
 */
export function hashKey(hash: string): Buffer | string {
  return HEX_HASH.test(hash) ? Buffer.from(hash, 'hex') : hash;
}

/** The content hash of a {@link hashKey}. */
export function hashOfKey(key: Buffer | string): string {
  return typeof key === 'string' ? key : key.toString('hex');
}

/** Bytes before a stored vector's values: its dimension, then the column its values start at (uint32, little-endian, each). */
const VECTOR_HEADER = 8;

/**
 * A vector as its blob, or `null` for a text the model could not embed: its dimension, the
 * column of its first non-zero value (uint32 little-endian each), then its float32 values
 * up to its last non-zero one (store/trimmed-vector.ts).
 */
export function vectorBlob(vector: Float32Array | null): Buffer | null {
  if (vector === null) return null;
  const { dimension, first, values } = trimVector(vector);
  const blob = Buffer.allocUnsafe(VECTOR_HEADER + values.byteLength);
  blob.writeUInt32LE(dimension, 0);
  blob.writeUInt32LE(first, 4);
  blob.set(new Uint8Array(values.buffer, values.byteOffset, values.byteLength), VECTOR_HEADER);
  return blob;
}

/**
 * The vector of a blob {@link vectorBlob} stored (copied: a blob's bytes need not be aligned for a Float32Array).
 * @throws RangeError for a blob that is not one (the caller reports the file damaged)
 */
export function vectorOf(model: string, hash: string, blob: Buffer | null): VectorRow {
  if (blob === null) return { model, hash, vector: null };
  const length = blob.byteLength - VECTOR_HEADER;
  if (length < 0 || length % 4 !== 0) throw new RangeError(`the vector of ${hash} (${model}) is not a stored vector (${blob.byteLength} bytes)`);
  const values = new Float32Array(length / 4);
  new Uint8Array(values.buffer).set(blob.subarray(VECTOR_HEADER));
  return { model, hash, vector: untrimVector({ dimension: blob.readUInt32LE(0), first: blob.readUInt32LE(4), values }) };
}

/** A blob of the formats before 1003 (every float32 value, zeros too) as {@link vectorBlob} stores it now. */
export function vectorBlobOfWhole(blob: Buffer | null): Buffer | null {
  if (blob === null) return null;
  const vector = new Float32Array(blob.byteLength / 4);
  new Uint8Array(vector.buffer).set(blob);
  return vectorBlob(vector);
}

/** A snapshot's body: everything but its key and sequence number (snapshot-body.ts). */
export function snapshotBody(row: StoredSnapshot): Buffer {
  const { ns: _ns, lastSeq: _lastSeq, ...body } = row;
  return encodeSnapshotBody(body);
}

/** The snapshot of a stored body; its typed arrays are views of `body`. */
export function snapshotOf(ns: string, lastSeq: number, body: Buffer): StoredSnapshot {
  return { ...decodeSnapshotBody(body), ns, lastSeq };
}
