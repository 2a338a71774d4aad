// `exportJsonl` and the JSONL export format it writes (its format name and version are the
// values its header's types are made of).

import type { MemoryRecord, Namespace } from './memory-record.ts';

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

/** Options of `exportJsonl(scope, options)`. */
export interface ExportOptions {
  /** Include the current embedder's vectors. Default false. */
  vectors?: boolean;
}
