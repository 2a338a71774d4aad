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

/** How many columns {@link RecordColumns} has: the parameters of one row in a record statement. */
export const RECORD_COLUMN_COUNT = 15;

/**
 * Whether a field of a row is kept out of `rest`: fields derived from others (the namespace
 * key twice, the user of the namespace) and index fields another engine keeps are never
 * stored; fields with a column of their own are there, unless `null`: the nullable columns
 * (`expiresAt`, the keyed-fact fields) hold `null` both for `null` and for a field the row
 * lacks, so a `null` value also stays in `rest`, and absent and `null` read back as they were written.
 */
function outOfRest(field: string, value: unknown): boolean {
  switch (field) {
    case 'ns':
    case 'namespaceKey':
    case 'userId':
    case 'byCreated':
    case 'byUpdated':
      return true;
    case 'id':
    case 'layer':
    case 'createdAt':
    case 'updatedAt':
    case 'contentHash':
    case 'content':
    case 'tags':
    case 'expiresAt':
    case 'key':
    case 'validFrom':
    case 'validUntil':
    case 'closedBy':
      return value !== null;
    default:
      return false;
  }
}

/** A row's values in {@link RecordColumns} order. */
export function recordColumns(row: RecordRow): RecordColumns {
  const columns = new Array<unknown>(RECORD_COLUMN_COUNT);
  putRecordColumns(row, columns, 0);
  return columns as RecordColumns;
}

/** {@link recordColumns} written into `into` from `at` on: the parameters of one row of a multi-row statement, with no array of its own. */
export function putRecordColumns(row: RecordRow, into: unknown[], at: number): void {
  const rest: Record<string, unknown> = {};
  for (const field in row) {
    const value = (row as unknown as Record<string, unknown>)[field];
    if (value === undefined || outOfRest(field, value)) continue;
    rest[field] = value;
  }
  into[at] = row.namespaceKey;
  into[at + 1] = row.id;
  into[at + 2] = row.namespace.userId;
  into[at + 3] = row.layer;
  into[at + 4] = row.createdAt;
  into[at + 5] = row.updatedAt;
  into[at + 6] = row.expiresAt ?? null;
  into[at + 7] = row.contentHash;
  into[at + 8] = row.key ?? null;
  into[at + 9] = row.validFrom ?? null;
  into[at + 10] = row.validUntil ?? null;
  into[at + 11] = row.closedBy ?? null;
  into[at + 12] = row.content;
  into[at + 13] = row.tags.length === 0 ? '[]' : JSON.stringify(row.tags);
  into[at + 14] = JSON.stringify(rest);
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

/** How many columns {@link auditColumns} gives: the parameters of one row in an audit statement. */
export const AUDIT_COLUMN_COUNT = 6;

/** The columns of `audit` for a row: ns, op, id, at, actor, rest (JSON of the others). `seq` is given by the table. */
export function auditColumns(row: AuditRow): [string, string, string, number, string, string] {
  const columns = new Array<unknown>(AUDIT_COLUMN_COUNT);
  putAuditColumns(row, columns, 0);
  return columns as [string, string, string, number, string, string];
}

/** {@link auditColumns} written into `into` from `at` on (one row of a multi-row statement). */
export function putAuditColumns(row: AuditRow, into: unknown[], at: number): void {
  const rest: Record<string, unknown> = {};
  for (const field in row) {
    const value = (row as unknown as Record<string, unknown>)[field];
    switch (field) {
      case 'seq':
      case 'ns':
      case 'op':
      case 'id':
      case 'at':
      case 'actor':
        continue;
      default:
        if (value !== undefined) rest[field] = value;
    }
  }
  into[at] = row.ns;
  into[at + 1] = row.op;
  into[at + 2] = row.id;
  into[at + 3] = row.at;
  into[at + 4] = row.actor;
  into[at + 5] = JSON.stringify(rest);
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
