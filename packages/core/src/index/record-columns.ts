import type { MemoryRecord, Namespace } from '../model/types.ts';

/**
 * One namespace's records stored column by column: parsing one JSON object per record took
 * 1.2-1.5 s for 100k records, most of it on fields that repeat (the namespace, empty tags
 * and metadata). Numbers go into one Float64Array (null as NaN); every other field
 * (source, layer, tags, metadata, and whatever a later version adds) into a JSON "rest"
 * shared by the records where it is equal.
 */
export interface RecordColumns {
  /** JSON of the namespace every record is in (null when there are no records). */
  namespace: string;
  namespaceKey: string;
  /** JSON arrays, one entry per record. */
  ids: string;
  contents: string;
  hashes: string;
  /** NUMBER_FIELDS.length values per record. */
  numbers: Float64Array;
  /** JSON array of the distinct rests; `restOf[i]` is record i's. */
  rests: string;
  restOf: Int32Array;
}

/** The order fromColumns reads them back in (a field added here goes there too). */
const NUMBER_FIELDS = ['importance', 'createdAt', 'updatedAt', 'expiresAt', 'accessCount', 'lastAccessedAt', 'version'] as const;
const OWN_COLUMNS = new Set<string>(['id', 'namespace', 'namespaceKey', 'content', 'contentHash', ...NUMBER_FIELDS]);

/** The records (all of one namespace) as columns. */
export function toColumns(records: MemoryRecord[], namespaceKey: string): RecordColumns {
  const n = records.length;
  const numbers = new Float64Array(n * NUMBER_FIELDS.length);
  const restIds = new Map<string, number>();
  const restOf = new Int32Array(n);
  records.forEach((record, i) => {
    NUMBER_FIELDS.forEach((field, f) => {
      numbers[i * NUMBER_FIELDS.length + f] = record[field] ?? Number.NaN;
    });
    const rest: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) if (!OWN_COLUMNS.has(key)) rest[key] = value;
    const json = JSON.stringify(rest);
    let id = restIds.get(json);
    if (id === undefined) restIds.set(json, (id = restIds.size));
    restOf[i] = id;
  });
  return {
    namespace: JSON.stringify(records[0]?.namespace ?? null),
    namespaceKey,
    ids: JSON.stringify(records.map((record) => record.id)),
    contents: JSON.stringify(records.map((record) => record.content)),
    hashes: JSON.stringify(records.map((record) => record.contentHash)),
    numbers,
    rests: JSON.stringify([...restIds.keys()].map((json) => JSON.parse(json) as unknown)),
    restOf,
  };
}

/**
 * The records again. Records with equal rests share their tags and metadata objects
 * (records are never mutated in place).
 * @throws RangeError when the columns do not fit together
 */
export function fromColumns(columns: RecordColumns): MemoryRecord[] {
  const reader = readColumns(columns);
  return Array.from({ length: reader.size }, (_, i) => reader.record(i));
}

/** Decoded columns, read a record at a time (see {@link readColumns}). */
export interface ColumnReader {
  readonly size: number;
  /** Record i's id. */
  id(i: number): string;
  /** Record i's fields that are not in a column of their own (shared between records). */
  rest(i: number): Partial<MemoryRecord>;
  expiresAt(i: number): number | null;
  /** Record i as an object (a new one each call). */
  record(i: number): MemoryRecord;
}

/**
 * The columns decoded (their JSON parsed once); records are made from them one at a time.
 * @throws RangeError when the columns do not fit together
 */
export function readColumns(columns: RecordColumns): ColumnReader {
  const ids = JSON.parse(columns.ids) as string[];
  const contents = JSON.parse(columns.contents) as string[];
  const hashes = JSON.parse(columns.hashes) as string[];
  const rests = JSON.parse(columns.rests) as Array<Partial<MemoryRecord>>;
  const namespace = JSON.parse(columns.namespace) as Namespace;
  const n = ids.length;
  const width = NUMBER_FIELDS.length;
  const { numbers, restOf, namespaceKey } = columns;
  if (contents.length !== n || hashes.length !== n || numbers.length !== n * width || restOf.length !== n) {
    throw new RangeError('record columns do not fit together');
  }
  for (let i = 0; i < n; i++) if (rests[restOf[i]!] === undefined) throw new RangeError(`record ${i} has no rest ${restOf[i]}`);
  return {
    size: n,
    id: (i) => ids[i]!,
    rest: (i) => rests[restOf[i]!]!,
    expiresAt: (i) => orNull(numbers[i * width + 3]!),
    record(i) {
      const at = i * width;
      // One object literal, in toColumns' field order: adding ~20 fields one by one by key
      // left every record in V8's dictionary mode, 1.9 KB a record instead of ~0.55 KB
      // (20k records: 38 MB against 5 MB of heap, and twice the time).
      return {
        id: ids[i]!,
        namespace,
        namespaceKey,
        content: contents[i]!,
        ...rests[restOf[i]!]!,
        importance: numbers[at]!,
        createdAt: numbers[at + 1]!,
        updatedAt: numbers[at + 2]!,
        expiresAt: orNull(numbers[at + 3]!),
        accessCount: numbers[at + 4]!,
        lastAccessedAt: orNull(numbers[at + 5]!),
        version: numbers[at + 6]!,
        contentHash: hashes[i]!,
      } as MemoryRecord;
    },
  };
}

/** NaN stands for null in the numbers column. */
function orNull(value: number): number | null {
  return value !== value ? null : value;
}
