import type { MemoryRecord } from '../public/memory-record.ts';
import { nextMacrotask } from '../model/next-macrotask.ts';
import { heatKey } from '../store/port.ts';
import { Bm25Index, type Bm25State } from './bm25-index.ts';
import { NamespaceIndex } from './namespace-index.ts';
import { readColumns, toColumns, type RecordColumns } from './record-columns.ts';
import { VectorIndex, type PackedVectors } from './vector-index.ts';

/** Bump when the row's shape changes: a snapshot of another format is rebuilt, never read. */
export const SNAPSHOT_FORMAT = 5; // 2: Chinese tokens folded to Simplified; 3: English stems added (tokenize.ts); 4: vectors packed by span (vector-index.ts); 5: ids once (words and vectors name records by position), contents and hashes as bytes (record-columns.ts)

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
  /** The words; slot i is the memory of record `slotRecords[i]` (each id is stored once, in `records`). */
  text: Omit<Bm25State, 'slotIds'> & { slotRecords: Int32Array };
  /** The packed vectors; row i is record `idRecords[i]`'s. */
  vectors: (Omit<PackedVectors, 'ids'> & { idRecords: Int32Array }) | null;
}

/** The snapshot of an index that is current up to `index.lastSeq` (synchronous: nothing changes it meanwhile). */
export function captureSnapshot(ns: string, index: NamespaceIndex, model: string | undefined): IndexSnapshotRow {
  // Without the int8 rows: the restore quantizes the floats again (20k × 128: a few ms) rather than every store carrying them.
  const packed = model && index.vectors ? index.vectors.exportPacked({ int8: false }) : null;
  const records = [...index.records.values()];
  const position = new Map(records.map((record, i) => [record.id, i]));
  const positions = (ids: string[]) => Int32Array.from(ids, (id) => position.get(id)!);
  const { slotIds, ...text } = index.text.exportState();
  return {
    ns,
    format: SNAPSHOT_FORMAT,
    lastSeq: index.lastSeq,
    model: packed ? model! : null,
    records: toColumns(records, ns),
    text: { ...text, slotRecords: positions(slotIds) },
    vectors: packed ? { dimension: packed.dimension, spans: packed.spans, idRecords: positions(packed.ids) } : null,
  };
}

/** A restored index, and the records whose vector the snapshot does not hold. */
export interface RestoredIndex {
  index: NamespaceIndex;
  withoutVector: MemoryRecord[];
}

/**
 * The index a snapshot describes, with the access statistics of `heat` (closes after
 * recalls only); vectors only when they are of `model`. Other work gets a turn between
 * its parts (records, words, vectors, the index): 20k memories are ~0.5 s of CPU on 2
 * busy cores, which a server's other requests (an MCP client's `tools/list` while the
 * index is readied at start) need not wait for in one piece.
 * Resolves to undefined when the snapshot is of another format or does not hang together
 * (the caller rebuilds from the store).
 */
export async function restoreSnapshot(row: IndexSnapshotRow, model: string | undefined, heat?: HeatRow): Promise<RestoredIndex | undefined> {
  if (row.format !== SNAPSHOT_FORMAT) return undefined;
  try {
    const records = readColumns(row.records);
    await nextMacrotask();
    const ids = (positions: Int32Array) => Array.from(positions, (at) => (at >= 0 && at < records.size ? records.id(at) : fail(`no record ${at}`)));
    const { slotRecords, ...words } = row.text;
    const text = Bm25Index.fromState({ ...words, slotIds: ids(slotRecords) });
    if (text.size !== records.size) return undefined;
    await nextMacrotask();
    const packed = model && row.vectors && row.model === model ? row.vectors : undefined;
    // The row was just read from the store: nothing else holds its arrays.
    const vectors = packed ? VectorIndex.fromPacked({ dimension: packed.dimension, spans: packed.spans, ids: ids(packed.idRecords) }, {}, { adopt: true }) : undefined;
    await nextMacrotask();
    const index = NamespaceIndex.restore(records, text, vectors, row.lastSeq);
    if (!index) return undefined;
    if (heat) warm(index, heat);
    // By position, not by a look-up of each id in the vector index: 1M look-ups in a Map of
    // 1M were 2.4 s of a 7.5 s restore (docs/benchmarks/2026-12-06-s12-vecfile.md). Ids
    // first: making a record's object moves it within the table.
    const missing: string[] = [];
    if (model) {
      const hasVector = new Uint8Array(records.size);
      if (vectors) for (const at of packed!.idRecords) hasVector[at] = 1;
      for (let at = 0; at < records.size; at++) if (!hasVector[at]) missing.push(records.id(at));
    }
    const withoutVector = missing.map((id) => index.records.get(id)!);
    // Every vector must be a record's: recall takes each vector hit to be one.
    if (vectors && vectors.size !== records.size - withoutVector.length) return undefined;
    return { index, withoutVector };
  } catch (err) {
    if (err instanceof RangeError || err instanceof SyntaxError) return undefined; // damaged: rebuild
    throw err;
  }
}

function fail(why: string): never {
  throw new RangeError(why);
}

/** Each record with the larger access count and last access of its own and the heat row's. */
function warm(index: NamespaceIndex, heat: HeatRow): void {
  readHeat(heat, (id, count, last) => {
    const record = index.records.get(id);
    if (record === undefined) return; // forgotten since
    if (count <= record.accessCount && last <= (record.lastAccessedAt ?? 0)) return;
    index.records.set(id, { ...record, accessCount: Math.max(count, record.accessCount), lastAccessedAt: Math.max(last, record.lastAccessedAt ?? 0) || null });
  });
}

/** True when the index holds every count of the heat row (a snapshot of it makes the row redundant). */
export function heatCovered(heat: HeatRow, index: NamespaceIndex): boolean {
  let covered = true;
  readHeat(heat, (id, count, last) => {
    const record = index.records.get(id);
    if (record && (count > record.accessCount || last > (record.lastAccessedAt ?? 0))) covered = false;
  });
  return covered;
}

/**
 * The access statistics of records recalled since a namespace's snapshot was written
 * (store key {@link heatKey}): what a close after recalls only writes, a few bytes a
 * record, instead of rewriting the whole snapshot (20k memories: ~74 MB and ~0.9 s of CPU
 * per server close, docs/BENCHMARKS.md). A restore takes the larger of each record's counts.
 */
export interface HeatRow {
  ns: string;
  /** Unused (the port keys every row with one); counts only grow, so any row of the namespace applies. */
  lastSeq: number;
  /** The records' ids, as one JSON string. */
  ids: string;
  accessCounts: Float64Array;
  /** `lastAccessedAt` of each, 0 for none. */
  lastAccessed: Float64Array;
}

/** The heat of these records of the index, merged with the row already stored (`stored`, if any). */
export function captureHeat(ns: string, index: NamespaceIndex, ids: Iterable<string>, stored: HeatRow | undefined): HeatRow {
  const heat = new Map<string, [number, number]>();
  if (stored) readHeat(stored, (id, count, last) => heat.set(id, [count, last]));
  for (const id of ids) {
    const record = index.records.get(id);
    if (!record) continue;
    const [count, last] = heat.get(id) ?? [0, 0];
    heat.set(id, [Math.max(count, record.accessCount), Math.max(last, record.lastAccessedAt ?? 0)]);
  }
  const values = [...heat.values()];
  return {
    ns: heatKey(ns),
    lastSeq: index.lastSeq,
    ids: JSON.stringify([...heat.keys()]),
    accessCounts: Float64Array.from(values, (value) => value[0]),
    lastAccessed: Float64Array.from(values, (value) => value[1]),
  };
}

/** A row with no records: what a full snapshot leaves (it holds every count itself). */
export function emptyHeat(ns: string, lastSeq: number): HeatRow {
  return { ns: heatKey(ns), lastSeq, ids: '[]', accessCounts: new Float64Array(0), lastAccessed: new Float64Array(0) };
}

/** Each record of the row with its id, access count and last access (0: none); nothing for a row that does not hang together. */
export function readHeat(row: HeatRow, each: (id: string, count: number, last: number) => void): void {
  let ids: unknown;
  try {
    ids = JSON.parse(row.ids);
  } catch {
    return;
  }
  if (!Array.isArray(ids) || !(row.accessCounts instanceof Float64Array) || !(row.lastAccessed instanceof Float64Array)) return;
  if (ids.length !== row.accessCounts.length || ids.length !== row.lastAccessed.length) return;
  ids.forEach((id, i) => {
    if (typeof id === 'string') each(id, row.accessCounts[i]!, row.lastAccessed[i]!);
  });
}
