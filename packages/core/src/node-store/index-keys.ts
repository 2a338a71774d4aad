/**
 * The keys a record is indexed under, computed without exceptions. fake-indexeddb's
 * `Index.getIndexKey` finds "no key" by catching a thrown DataError: a memory without an
 * expiry is not in the `expiresAt` indexes, so every write paid a DOMException (with its
 * stack) per such index, about a tenth of an import's time.
 */
import type { RawIndex } from './fake-indexeddb-internals.ts';
import { encodeKey } from './key-codec.ts';

const MISSING = Symbol('missing');
const ASK_ENGINE = Symbol('ask the engine');

/**
 * Replaces an index's `getIndexKey` (used by its storeRecord and deleteRecord) with one
 * that answers the common cases directly (paths through plain objects to strings, numbers,
 * null, booleans or nothing) and hands every other case (dates, binary, arrays of a
 * multi-entry index, `length` of a string, ...) to fake-indexeddb's own, so the answers
 * are the same.
 */
export function indexWithoutExceptions(index: RawIndex): void {
  if (Object.hasOwn(index, 'getIndexKey')) return;
  const engine = index.getIndexKey;
  const compound = Array.isArray(index.keyPath);
  const paths = (compound ? (index.keyPath as string[]) : [index.keyPath as string]).map((path) => (path === '' ? undefined : path.split('.')));
  index.getIndexKey = function (this: RawIndex, value: unknown) {
    if (!compound) {
      const key = simpleKeyAt(paths[0], value);
      return key === ASK_ENGINE ? engine.call(this, value) : key;
    }
    const parts: IDBValidKey[] = [];
    for (const path of paths) {
      const part = simpleKeyAt(path, value);
      if (part === ASK_ENGINE) return engine.call(this, value);
      if (part === undefined) return undefined; // one part without a key: the record is not in the index
      parts.push(part);
    }
    return parts;
  };
}

/** The key at `path` when it is a string or number, `undefined` when there is none; ASK_ENGINE when it takes the engine's rules. */
function simpleKeyAt(path: string[] | undefined, value: unknown): IDBValidKey | undefined | typeof ASK_ENGINE {
  if (path === undefined) return ASK_ENGINE;
  const at = plainValueAt(path, value);
  if (at === ASK_ENGINE || at === MISSING) return at === MISSING ? undefined : ASK_ENGINE;
  if (typeof at === 'string') return at;
  if (typeof at === 'number') return Number.isNaN(at) ? undefined : at;
  if (at === null || at === undefined || typeof at === 'boolean') return undefined; // not keys
  return ASK_ENGINE;
}

/** What a key path finds, through own properties of plain objects only (the engine's special cases are left to it). */
function plainValueAt(path: string[], value: unknown): unknown {
  let at = value;
  for (const step of path) {
    if (typeof at === 'string' || Array.isArray(at)) return ASK_ENGINE; // `length`
    if (at === null || typeof at !== 'object') return MISSING;
    if (Object.getPrototypeOf(at) !== Object.prototype) return ASK_ENGINE; // Blob/File fields, class instances
    if (!Object.hasOwn(at, step)) return MISSING;
    at = (at as Record<string, unknown>)[step];
  }
  return at;
}

/**
 * The key a value is indexed under, or `undefined` when it has none: what fake-indexeddb's
 * `getIndexKey` computes, for building an index's tree at open.
 */
function indexKeyOf(paths: string[][], compound: boolean, multiEntry: boolean, value: unknown): IDBValidKey | undefined {
  if (compound) {
    const parts: IDBValidKey[] = [];
    for (const path of paths) {
      const part = valueAt(path, value);
      if (!isValidKey(part)) return undefined;
      parts.push(part);
    }
    return parts;
  }
  const key = valueAt(paths[0]!, value);
  return (multiEntry && Array.isArray(key)) || isValidKey(key) ? (key as IDBValidKey) : undefined;
}

function valueAt(path: string[], value: unknown): unknown {
  let at = value;
  for (const step of path) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, step)) return undefined;
    at = (at as Record<string, unknown>)[step];
  }
  return at;
}

function isValidKey(key: unknown): key is IDBValidKey {
  if (typeof key === 'string') return true;
  if (typeof key === 'number') return !Number.isNaN(key);
  if (Array.isArray(key)) return key.every(isValidKey);
  if (key instanceof Date) return !Number.isNaN(key.getTime());
  return key instanceof ArrayBuffer || ArrayBuffer.isView(key);
}

/** A multi-entry index's keys of an array: its valid elements, each once. */
function multiEntryKeys(keys: unknown[]): IDBValidKey[] {
  if (keys.length === 1) return isValidKey(keys[0]) ? [keys[0]] : [];
  const seen = new Set<string>();
  const out: IDBValidKey[] = [];
  for (const key of keys) {
    if (!isValidKey(key)) continue;
    const identity = typeof key === 'string' ? `s${key}` : encodeKey(key);
    if (seen.has(identity)) continue;
    seen.add(identity);
    out.push(key);
  }
  return out;
}

/** Where an index reads its key in a value: its key path split into steps, and how the key is formed. */
export interface IndexShape {
  paths: string[][];
  compound: boolean;
  multiEntry: boolean;
}

export function indexShape(index: { keyPath: string | string[]; multiEntry: boolean }): IndexShape {
  return {
    paths: (Array.isArray(index.keyPath) ? index.keyPath : [index.keyPath]).map((path) => (path === '' ? [] : path.split('.'))),
    compound: Array.isArray(index.keyPath),
    multiEntry: index.multiEntry,
  };
}

/** The keys of a value's entries in an index (none, one, or a multi-entry index's several). */
export function entryKeysOf(shape: IndexShape, value: unknown): IDBValidKey[] {
  const key = indexKeyOf(shape.paths, shape.compound, shape.multiEntry, value);
  if (key === undefined) return [];
  return shape.multiEntry && Array.isArray(key) ? multiEntryKeys(key) : [key];
}
