import { createTokenizer, type Memory, type Tokenizer } from '../src/index.ts';
import { cachedCount } from '../src/context/count-cache.ts';
import { memoryInternals } from '../src/test-hooks.ts';
import { sqliteFileOf, type StorePlace } from './helpers.ts';
import { readSqliteStore, readSqliteTable } from './sqlite-store-rows.ts';

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** Every string inside a value: strings, object keys, and bytes decoded as UTF-8 and Latin-1 (a serialized snapshot may be binary). */
function strings(value: unknown, out: string[], seen = new Set<unknown>()): void {
  if (typeof value === 'string') return void out.push(value);
  if (value === null || typeof value !== 'object' || seen.has(value)) return;
  seen.add(value);
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
    const bytes = value instanceof ArrayBuffer ? new Uint8Array(value) : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    out.push(utf8.decode(bytes));
    let latin1 = '';
    for (const byte of bytes) latin1 += String.fromCharCode(byte);
    out.push(latin1);
    return;
  }
  if (value instanceof Map) {
    for (const [k, v] of value) {
      strings(k, out, seen);
      strings(v, out, seen);
    }
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    out.push(k);
    strings(v, out, seen);
  }
}

/**
 * Where the needles occur in a database: every object store, found by name at run time
 * (so stores added later are searched too), keys and values. Returns "store: needle" hits.
 */
export async function databaseTraces(place: StorePlace, name: string, needles: readonly string[]): Promise<string[]> {
  if (place.engine === 'sqlite') {
    const file = sqliteFileOf(place, name)!;
    // A SQLite store: its tables as the port's rows (the tag table's rows count as the records').
    const stores = readSqliteStore(file);
    stores['records']!.push(...readSqliteTable(file, 'record_tags'));
    const hits: string[] = [];
    for (const [store, rows] of Object.entries(stores)) {
      const found: string[] = [];
      strings(rows, found);
      const text = found.join('\n');
      for (const needle of needles) if (text.includes(needle)) hits.push(`${store}: ${needle}`);
    }
    return hits;
  }
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = place.indexedDB.open(name);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const hits: string[] = [];
  try {
    for (const store of Array.from(db.objectStoreNames)) {
      const read = <T>(make: (s: IDBObjectStore) => IDBRequest<T>) =>
        new Promise<T>((resolve, reject) => {
          const request = make(db.transaction(store).objectStore(store));
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => reject(request.error);
        });
      const found: string[] = [];
      strings(await read((s) => s.getAll()), found);
      strings(await read((s) => s.getAllKeys()), found);
      const text = found.join('\n');
      for (const needle of needles) if (text.includes(needle)) hits.push(`${store}: ${needle}`);
    }
  } finally {
    db.close();
  }
  return hits;
}

/** Where the needles occur in the memory's loaded search indexes (records, conversation turns, BM25 words) and whether it holds vectors of these ids. */
export function indexTraces(memory: Memory, needles: readonly string[], ids: readonly string[]): string[] {
  const ctx = memoryInternals.get(memory)!;
  const hits: string[] = [];
  for (const key of ctx.indexes.loadedKeys()) {
    const index = ctx.indexes.loaded(key)!;
    const found: string[] = [];
    strings(index.records, found);
    strings(new Map(index.turns.entries()), found);
    found.push(...index.text.words());
    const text = found.join('\n');
    for (const needle of needles) if (text.includes(needle)) hits.push(`index ${key}: ${needle}`);
    const turnIds = new Set([...index.turns.entries()].map(([, id]) => id));
    for (const id of ids) if (index.vectors?.has(id) || index.records.has(id) || turnIds.has(id)) hits.push(`index ${key}: record ${id}`);
  }
  return hits;
}

/** A real tokenizer that records every text it is asked to count, so a test can tell a token-count cache hit (`cached`) from a miss. */
export async function recordingTokenizer(): Promise<{ tokenizer: Tokenizer; counted: Set<string>; cached: (text: string) => boolean }> {
  const real = await createTokenizer();
  const counted = new Set<string>();
  let calls = 0;
  const tokenizer: Tokenizer = { id: real.id, count: (text) => (calls++, counted.add(text), real.count(text)), truncate: (text, max) => real.truncate(text, max) };
  const cached = (text: string) => {
    const before = calls;
    cachedCount(tokenizer, text);
    return calls === before;
  };
  return { tokenizer, counted, cached };
}
