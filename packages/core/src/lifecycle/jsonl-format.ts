import type { MemoryRecord, Namespace } from '../public/memory-record.ts';

/** The `format` of a zeromem export's header line. */
export const EXPORT_FORMAT = 'zeromem-export';
/** The export format version this code writes; import reads this version. */
export const EXPORT_VERSION = 1;

/** What an export holds: one namespace, or every namespace of a user. */
export type ExportScope = { namespace: Namespace } | { userId: string };

/** The first line of an export. */
export interface ExportHeader {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  /** Epoch ms, from the memory's clock. */
  exportedAt: number;
  scope: ExportScope;
  /** How many record lines follow (import refuses a file with fewer or more: truncated or spliced). */
  records: number;
  /** The embedding model whose vectors the record lines carry, or `null` when they carry none. */
  vectors: { model: string; dimension: number } | null;
}

/**
 * Every following line: one record, exactly as reads return it. With vectors, `vector` is
 * the record's unit vector as base64 of little-endian float32, `null` when the model could
 * not embed the text, and absent when it was not embedded yet.
 */
export interface ExportLine {
  record: MemoryRecord;
  vector?: string | null;
}

/** Base64 of the vector's float32 values, little-endian whatever the machine. */
export function encodeVector(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  vector.forEach((value, i) => view.setFloat32(i * 4, value, true));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The vector of {@link encodeVector}, or `undefined` when the text is not base64 of `dimension` finite float32 values. */
export function decodeVector(text: string, dimension: number): Float32Array | undefined {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return undefined;
  }
  if (binary.length !== dimension * 4) return undefined;
  const view = new DataView(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) view.setUint8(i, binary.charCodeAt(i));
  const vector = new Float32Array(dimension);
  for (let i = 0; i < dimension; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector.every(Number.isFinite) ? vector : undefined;
}
