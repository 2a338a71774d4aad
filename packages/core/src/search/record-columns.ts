import type { MemoryRecord, Namespace } from '../public/memory-record.ts';
import { isWellFormedText } from '../model/utf8.ts';

/**
 * One namespace's records stored column by column: parsing one JSON object per record took
 * 1.2-1.5 s for 100k records, most of it on fields that repeat (the namespace, empty tags
 * and metadata). Numbers go into one Float64Array (null as NaN); every other field
 * (source, layer, tags, metadata, and whatever a later version adds) into a JSON "rest"
 * shared by the records where it is equal. Contents and hashes are bytes that a restore
 * keeps as they are read (a record's strings are made when its object is, see
 * record-table.ts): 100k contents and hashes were 200k strings on every process's heap.
 */
export interface RecordColumns {
  /** JSON of the namespace every record is in (null when there are no records). */
  namespace: string;
  namespaceKey: string;
  /** JSON array of the ids, one per record. */
  ids: string;
  /**
   * Every content's UTF-8 bytes one after another, record i's ending at `contentEnds[i]`;
   * a JSON array of the contents when one has an unpaired surrogate (UTF-8 cannot hold it).
   */
  contents: Uint8Array | string;
  contentEnds: Uint32Array;
  /** 32 bytes a record, its SHA-256 (lower-case hex in the record); a JSON array when one is not such a hash. */
  hashes: Uint8Array | string;
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
    ...contentColumns(records),
    hashes: records.every((record) => HEX_HASH.test(record.contentHash)) ? hashBytes(records) : JSON.stringify(records.map((record) => record.contentHash)),
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
  const content = contentReader(columns, ids.length);
  const hash = hashReader(columns.hashes, ids.length);
  const rests = JSON.parse(columns.rests) as Array<Partial<MemoryRecord>>;
  const namespace = JSON.parse(columns.namespace) as Namespace;
  const n = ids.length;
  const width = NUMBER_FIELDS.length;
  const { numbers, restOf, namespaceKey } = columns;
  if (numbers.length !== n * width || restOf.length !== n) {
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
        content: content(i),
        ...rests[restOf[i]!]!,
        importance: numbers[at]!,
        createdAt: numbers[at + 1]!,
        updatedAt: numbers[at + 2]!,
        expiresAt: orNull(numbers[at + 3]!),
        accessCount: numbers[at + 4]!,
        lastAccessedAt: orNull(numbers[at + 5]!),
        version: numbers[at + 6]!,
        contentHash: hash(i),
      } as MemoryRecord;
    },
  };
}

/** NaN stands for null in the numbers column. */
function orNull(value: number): number | null {
  return value !== value ? null : value;
}

const HEX_HASH = /^[0-9a-f]{64}$/;
/** Char codes of '0'-'9', 'a'-'f'. */
const HEX_CODES = Array.from('0123456789abcdef', (char) => char.charCodeAt(0));

/** The contents as UTF-8 bytes and ends (or as JSON, when one cannot be UTF-8). */
function contentColumns(records: MemoryRecord[]): Pick<RecordColumns, 'contents' | 'contentEnds'> {
  const contentEnds = new Uint32Array(records.length);
  if (!records.every((record) => isWellFormedText(record.content))) return { contents: JSON.stringify(records.map((record) => record.content)), contentEnds };
  const encoder = new TextEncoder();
  let bytes = new Uint8Array(64);
  let end = 0;
  records.forEach((record, i) => {
    const most = record.content.length * 3; // UTF-8 bytes per UTF-16 unit, at most
    if (end + most > bytes.length) {
      const grown = new Uint8Array(Math.max(bytes.length * 2, end + most));
      grown.set(bytes.subarray(0, end));
      bytes = grown;
    }
    end += encoder.encodeInto(record.content, bytes.subarray(end)).written;
    contentEnds[i] = end;
  });
  return { contents: bytes.slice(0, end), contentEnds };
}

function hashBytes(records: MemoryRecord[]): Uint8Array {
  const out = new Uint8Array(records.length * 32);
  records.forEach((record, i) => {
    for (let b = 0; b < 32; b++) out[i * 32 + b] = Number.parseInt(record.contentHash.slice(b * 2, b * 2 + 2), 16);
  });
  return out;
}

/** Record i's content, decoded when asked for. */
function contentReader(columns: RecordColumns, n: number): (i: number) => string {
  const { contents, contentEnds } = columns;
  if (typeof contents === 'string') {
    const parsed = JSON.parse(contents) as string[];
    if (parsed.length !== n) throw new RangeError('record columns do not fit together');
    return (i) => parsed[i]!;
  }
  if (!(contents instanceof Uint8Array) || !(contentEnds instanceof Uint32Array) || contentEnds.length !== n || (n > 0 && contentEnds[n - 1] !== contents.length)) {
    throw new RangeError('record contents do not fit together');
  }
  for (let i = 1; i < n; i++) if (contentEnds[i]! < contentEnds[i - 1]!) throw new RangeError(`record ${i}'s content ends before it starts`);
  const decoder = new TextDecoder();
  return (i) => decoder.decode(contents.subarray(i === 0 ? 0 : contentEnds[i - 1]!, contentEnds[i]!));
}

/** Record i's hash, as hex when asked for. */
function hashReader(hashes: Uint8Array | string, n: number): (i: number) => string {
  if (typeof hashes === 'string') {
    const parsed = JSON.parse(hashes) as string[];
    if (parsed.length !== n) throw new RangeError('record columns do not fit together');
    return (i) => parsed[i]!;
  }
  if (!(hashes instanceof Uint8Array) || hashes.length !== n * 32) throw new RangeError('record hashes do not fit together');
  const codes = new Array<number>(64);
  return (i) => {
    for (let b = 0; b < 32; b++) {
      const byte = hashes[i * 32 + b]!;
      codes[b * 2] = HEX_CODES[byte >> 4]!;
      codes[b * 2 + 1] = HEX_CODES[byte & 15]!;
    }
    // One flat string (a `+=` per byte made 32 string pieces: ~1 KB a hash until flattened).
    return String.fromCharCode(...codes);
  };
}
