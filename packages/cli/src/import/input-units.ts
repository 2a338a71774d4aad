import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { parse, type CsvError } from 'csv-parse';
import { JobError } from '../jobs/job-error.ts';

/** One input item as read from the file, in file order: a memory to store, or a line that cannot be one. */
export interface InputUnit {
  /** 1-based line where the item starts. */
  line: number;
  /** The parsed item (fields as core's `RememberInput`, namespace not yet defaulted). */
  item?: Record<string, unknown>;
  /**
   * A line of a zeromem export (what `zeromem export` and `exportJsonl()` write): its
   * header, or one of its record lines. Core's `importJsonl` reads them (`raw`), so every
   * export format core reads, this command reads.
   */
  exportLine?: 'header' | 'record';
  /** Why the text is not an item (bad JSON, a CSV row with the wrong number of fields). */
  error?: { code: 'INVALID_INPUT'; message: string };
  /** The text of the item as in the file (for the failure report). */
  raw: string;
  /** Bytes of the (unzipped) text up to the end of this item: how far the file is read. */
  end: number;
}

/** The formats `zeromem import` reads. */
export type InputFormat = 'jsonl' | 'csv';

/** `.jsonl`/`.ndjson` (optionally `.gz`) is JSONL, `.csv` (optionally `.gz`) is CSV. */
export function formatOf(file: string): InputFormat | undefined {
  const name = file.toLowerCase().replace(/\.gz$/, '');
  if (name.endsWith('.jsonl') || name.endsWith('.ndjson')) return 'jsonl';
  if (name.endsWith('.csv')) return 'csv';
  return undefined;
}

/**
 * Reads a file's items in order. `bytesRead()` is how much of the file as stored (gzipped
 * or not) was read, ahead of the items handed out by the read buffer.
 */
export function readUnits(file: string, format: InputFormat): { units: AsyncGenerator<InputUnit>; bytesRead: () => number } {
  let bytes = 0;
  const raw = createReadStream(file);
  raw.on('data', (chunk) => (bytes += chunk.length));
  let input: Readable = raw;
  if (file.endsWith('.gz')) {
    const gunzip = createGunzip();
    raw.on('error', (err) => gunzip.destroy(err));
    input = raw.pipe(gunzip);
  }
  const units = format === 'jsonl' ? jsonlUnits(input) : csvUnits(input);
  return { units, bytesRead: () => bytes };
}

/**
 * JSONL: one memory per line, or a zeromem export, told apart by the first line: an
 * object with a `format` field is an export's header (a memory has no such field), and
 * every line after it is a record line of that export.
 */
async function* jsonlUnits(input: Readable): AsyncGenerator<InputUnit> {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  let end = 0;
  let anExport: boolean | undefined;
  try {
    for await (const text of lines) {
      line++;
      end += Buffer.byteLength(text) + 1;
      if (text.trim() === '') continue;
      const first = anExport === undefined;
      anExport ??= isExportHeader(text);
      if (anExport) {
        yield { line, end, raw: text, exportLine: first ? 'header' : 'record' };
        continue;
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        yield { line, end, raw: text, error: { code: 'INVALID_INPUT', message: `not JSON: ${(err as Error).message}` } };
        continue;
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        yield { line, end, raw: text, error: { code: 'INVALID_INPUT', message: 'a line must be a JSON object (a memory: {"namespace":{"userId":…},"content":…})' } };
        continue;
      }
      yield { line, end, raw: text, item: value as Record<string, unknown> };
    }
  } finally {
    lines.close();
    input.destroy();
  }
}

/** True when `text` is a JSON object with a `format` field: the first line of a zeromem export (core checks the rest of it). */
function isExportHeader(text: string): boolean {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) && 'format' in value;
  } catch {
    return false;
  }
}

/** CSV columns and the memory field each one fills. */
export const CSV_COLUMNS = ['content', 'id', 'userId', 'agentId', 'scope', 'source', 'layer', 'tags', 'metadata', 'importance', 'createdAt', 'expiresAt', 'ttl'] as const;
const NAMESPACE_COLUMNS = new Set(['userId', 'agentId', 'scope']);

/**
 * CSV with a header row (csv-parse). Columns are {@link CSV_COLUMNS} or `metadata.<key>`
 * (a string metadata value); `tags` is `|`-separated, `metadata` a JSON object, an empty
 * cell is a field left out. A header with another column is INVALID_INPUT before anything is stored.
 */
async function* csvUnits(input: Readable): AsyncGenerator<InputUnit> {
  const parser = input.pipe(
    parse({
      bom: true,
      columns: (header: string[]) => checkHeader(header),
      info: true,
      raw: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
    }),
  );
  input.on('error', (err) => parser.destroy(err));
  // Rows csv-parse could not read come as events while records are still buffered: merge by line.
  const skipped: InputUnit[] = [];
  let end = 0;
  parser.on('skip', (err: CsvError & { lines?: number; raw?: string }) => {
    const raw = (err.raw ?? '').replace(/\r?\n$/, '');
    skipped.push({ line: startLine(err.lines ?? 0, raw), end, raw, error: { code: 'INVALID_INPUT', message: err.message } });
  });
  try {
    for await (const { record, raw, info } of parser as AsyncIterable<{ record: Record<string, string>; raw: string; info: { lines: number; bytes: number } }>) {
      const text = raw.replace(/\r?\n$/, '');
      const line = startLine(info.lines, text);
      while (skipped.length && skipped[0]!.line < line) yield skipped.shift()!;
      end = info.bytes;
      yield csvUnit(record, line, text, end);
    }
    yield* skipped.splice(0);
  } catch (err) {
    if (err instanceof JobError) throw err;
    throw new JobError('INVALID_INPUT', `the CSV cannot be read: ${(err as Error).message}`);
  } finally {
    parser.destroy();
    input.destroy();
  }
}

/** The line a record starts on, from the line it ends on and its text. */
function startLine(endLine: number, text: string): number {
  return Math.max(1, endLine - (text.match(/\n/g)?.length ?? 0));
}

function checkHeader(header: string[]): string[] {
  const known = new Set<string>(CSV_COLUMNS);
  const names = header.map((h) => h.trim());
  const unknown = names.filter((name) => !known.has(name) && !/^metadata\.[^.]+$/.test(name));
  if (unknown.length) {
    throw new JobError('INVALID_INPUT', `unknown CSV column${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `"${u}"`).join(', ')}; known: ${CSV_COLUMNS.join(', ')}, metadata.<key>`);
  }
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) throw new JobError('INVALID_INPUT', `CSV column "${twice}" appears twice`);
  if (!names.includes('content')) throw new JobError('INVALID_INPUT', 'the CSV needs a "content" column');
  if (names.includes('metadata') && names.some((name) => name.startsWith('metadata.'))) {
    throw new JobError('INVALID_INPUT', 'give either a "metadata" column (JSON) or "metadata.<key>" columns, not both');
  }
  return names;
}

function csvUnit(record: Record<string, string>, line: number, raw: string, end: number): InputUnit {
  const item: Record<string, unknown> = {};
  const namespace: Record<string, string> = {};
  const metadata: Record<string, string> = {};
  for (const [column, cell] of Object.entries(record)) {
    if (cell === '') continue;
    if (NAMESPACE_COLUMNS.has(column)) namespace[column] = cell;
    else if (column.startsWith('metadata.')) metadata[column.slice('metadata.'.length)] = cell;
    else if (column === 'tags') item.tags = cell.split('|').map((tag) => tag.trim());
    else if (column === 'importance') item.importance = /^\s*-?[\d.]+(e-?\d+)?\s*$/i.test(cell) ? Number(cell) : cell;
    else if (column === 'metadata') {
      try {
        item.metadata = JSON.parse(cell);
      } catch (err) {
        return { line, end, raw, error: { code: 'INVALID_INPUT', message: `metadata: not JSON: ${(err as Error).message}` } };
      }
    } else item[column] = cell;
  }
  if (Object.keys(namespace).length) item.namespace = namespace;
  if (Object.keys(metadata).length) item.metadata = metadata;
  return { line, end, raw, item };
}
