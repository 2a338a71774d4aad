import type { MemoryRecord } from '../model/types.ts';
import { Bm25Index, type Bm25State } from './bm25-index.ts';
import { NamespaceIndex } from './namespace-index.ts';
import { fromColumns, toColumns, type RecordColumns } from './record-columns.ts';
import { VectorIndex, type PackedVectors } from './vector-index.ts';

/** Bump when the row's shape changes: a snapshot of another format is rebuilt, never read. */
export const SNAPSHOT_FORMAT = 4; // 2: Chinese tokens folded to Simplified; 3: English stems added (tokenize.ts); 4: vectors packed by span (vector-index.ts)

/**
 * One namespace's search index as stored (table `indexSnapshots`): what a new instance
 * restores instead of reading every row and vector and re-tokenizing. It is a cache of
 * the store up to audit entry `lastSeq`; changes after it are replayed from the audit log.
 * It holds contents and vectors, so forgets, expiries and content changes delete it.
 */
export interface IndexSnapshotRow {
  ns: string;
  format: number;
  /** The namespace's last audit sequence number the snapshot includes. */
  lastSeq: number;
  /** Model of the vectors (null: none stored). */
  model: string | null;
  records: RecordColumns;
  text: Bm25State;
  /** The packed vectors, ids as one JSON string (cloned in one piece, unlike an array of strings). */
  vectors: (Omit<PackedVectors, 'ids'> & { ids: string }) | null;
}

/** The snapshot of an index that is current up to `index.lastSeq` (synchronous: nothing changes it meanwhile). */
export function captureSnapshot(ns: string, index: NamespaceIndex, model: string | undefined): IndexSnapshotRow {
  // Without the int8 rows: the restore quantizes the floats again (20k × 128: a few ms) rather than every store carrying them.
  const packed = model && index.vectors ? index.vectors.exportPacked({ int8: false }) : null;
  return {
    ns,
    format: SNAPSHOT_FORMAT,
    lastSeq: index.lastSeq,
    model: packed ? model! : null,
    records: toColumns([...index.records.values()], ns),
    text: index.text.exportState(),
    vectors: packed ? { ...packed, ids: JSON.stringify(packed.ids) } : null,
  };
}

/** A restored index, and the records whose vector the snapshot does not hold. */
export interface RestoredIndex {
  index: NamespaceIndex;
  withoutVector: MemoryRecord[];
}

/**
 * The index a snapshot describes; vectors only when they are of `model`.
 * Returns undefined when the snapshot is of another format or does not hang together
 * (the caller rebuilds from the store).
 */
export function restoreSnapshot(row: IndexSnapshotRow, model: string | undefined): RestoredIndex | undefined {
  if (row.format !== SNAPSHOT_FORMAT) return undefined;
  try {
    const records = fromColumns(row.records);
    const text = Bm25Index.fromState(row.text);
    if (text.size !== records.length) return undefined;
    const packed = model && row.vectors && row.model === model ? row.vectors : undefined;
    // The row was just read from the store: nothing else holds its arrays.
    const vectors = packed ? VectorIndex.fromPacked({ ...packed, ids: JSON.parse(packed.ids) as string[] }, {}, { adopt: true }) : undefined;
    const index = NamespaceIndex.restore(records, text, vectors, row.lastSeq);
    if (!index) return undefined;
    const withoutVector = model ? records.filter((record) => !vectors?.has(record.id)) : [];
    // Every vector must be a record's: recall takes each vector hit to be one.
    if (vectors && vectors.size !== records.length - withoutVector.length) return undefined;
    return { index, withoutVector };
  } catch (err) {
    if (err instanceof RangeError || err instanceof SyntaxError) return undefined; // damaged: rebuild
    throw err;
  }
}
