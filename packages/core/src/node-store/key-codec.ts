/**
 * IndexedDB keys as strings whose plain string order (UTF-16 code units, what `<` and
 * `Array.prototype.sort()` compare) is IndexedDB's key order: number < date < string <
 * binary < array, arrays element by element, a prefix first. Each encoding is
 * self-delimiting, so concatenations compare like tuples. As a BLOB in UTF-16 big-endian
 * ({@link keyToBlob}) SQLite's byte order is the same order, so `ORDER BY key` loads a
 * store sorted and its in-memory tree is built without one comparison.
 */

const NUMBER = '\u0010';
const DATE = '\u0020';
const STRING = '\u0030';
const BINARY = '\u0040';
const ARRAY = '\u0050';
const END = '\u0000';

const float = new Float64Array(1);
const units = new Uint16Array(float.buffer);

/** Eight bytes whose unsigned big-endian order is the numbers' order (-0 is 0, as IndexedDB compares them). */
function encodeNumber(n: number): string {
  float[0] = n === 0 ? 0 : n;
  // Little-endian memory: units[3] holds the sign and exponent.
  let a = units[3]!;
  let b = units[2]!;
  let c = units[1]!;
  let d = units[0]!;
  if (a & 0x8000) {
    a = ~a & 0xffff;
    b = ~b & 0xffff;
    c = ~c & 0xffff;
    d = ~d & 0xffff;
  } else a |= 0x8000;
  return String.fromCharCode(a, b, c, d);
}

function decodeNumber(s: string, at: number): number {
  let a = s.charCodeAt(at);
  let b = s.charCodeAt(at + 1);
  let c = s.charCodeAt(at + 2);
  let d = s.charCodeAt(at + 3);
  if (a & 0x8000) a &= 0x7fff;
  else {
    a = ~a & 0xffff;
    b = ~b & 0xffff;
    c = ~c & 0xffff;
    d = ~d & 0xffff;
  }
  units[3] = a;
  units[2] = b;
  units[1] = c;
  units[0] = d;
  return float[0]!;
}

/** The order-preserving string of an IndexedDB key (one fake-indexeddb produced, so already valid). */
export function encodeKey(key: IDBValidKey): string {
  if (typeof key === 'number') return NUMBER + encodeNumber(key);
  if (typeof key === 'string') {
    // 0x0000 and 0x0001 are escaped so that END (0x0000) sorts a prefix first.
    let out = STRING;
    let from = 0;
    for (let i = 0; i < key.length; i++) {
      const unit = key.charCodeAt(i);
      if (unit > 1) continue;
      out += key.slice(from, i) + (unit === 0 ? '\u0001\u0001' : '\u0001\u0002');
      from = i + 1;
    }
    return out + key.slice(from) + END;
  }
  if (Array.isArray(key)) {
    let out = ARRAY;
    for (const part of key) out += encodeKey(part);
    return out + END;
  }
  if (key instanceof Date) return DATE + encodeNumber(key.getTime());
  const bytes = ArrayBuffer.isView(key) ? new Uint8Array(key.buffer, key.byteOffset, key.byteLength) : new Uint8Array(key as ArrayBuffer);
  let out = BINARY;
  // Bytes shifted by 2 need no escaping and stay above END.
  for (let i = 0; i < bytes.length; i += 4096) out += String.fromCharCode(...Array.from(bytes.subarray(i, i + 4096), (b) => b + 2));
  return out + END;
}

/** The key {@link encodeKey} encoded. */
export function decodeKey(s: string): IDBValidKey {
  const [key, end] = decodeAt(s, 0);
  if (end !== s.length) throw new Error('trailing bytes after a key');
  return key;
}

function decodeAt(s: string, at: number): [IDBValidKey, number] {
  const type = s[at];
  if (type === NUMBER) return [decodeNumber(s, at + 1), at + 5];
  if (type === DATE) return [new Date(decodeNumber(s, at + 1)), at + 5];
  if (type === STRING) {
    let out = '';
    let i = at + 1;
    let from = i;
    for (; ; i++) {
      const unit = s.charCodeAt(i);
      if (Number.isNaN(unit)) throw new Error('unterminated string key');
      if (unit === 0) return [out + s.slice(from, i), i + 1];
      if (unit === 1) {
        out += s.slice(from, i) + (s.charCodeAt(i + 1) === 1 ? '\u0000' : '\u0001');
        i++;
        from = i + 1;
      }
    }
  }
  if (type === BINARY) {
    const end = s.indexOf(END, at + 1);
    if (end < 0) throw new Error('unterminated binary key');
    const bytes = new Uint8Array(end - at - 1);
    for (let i = 0; i < bytes.length; i++) bytes[i] = s.charCodeAt(at + 1 + i) - 2;
    return [bytes.buffer, end + 1];
  }
  if (type === ARRAY) {
    const parts: IDBValidKey[] = [];
    let i = at + 1;
    while (s[i] !== END) {
      if (i >= s.length) throw new Error('unterminated array key');
      const [part, next] = decodeAt(s, i);
      parts.push(part);
      i = next;
    }
    return [parts, i + 1];
  }
  throw new Error(`not a key encoding (type ${type === undefined ? 'missing' : type.charCodeAt(0)})`);
}

/** The key string as UTF-16 big-endian bytes, whose byte order (SQLite's BLOB order) is the string's order. */
export function keyToBlob(s: string): Buffer {
  return Buffer.from(s, 'utf16le').swap16();
}

/** The key string of a {@link keyToBlob} BLOB; `reuse` swaps the BLOB's own bytes (one just read and not needed after) instead of a copy. */
export function blobToKey(blob: Buffer, reuse = false): string {
  return (reuse ? blob : Buffer.from(blob)).swap16().toString('utf16le');
}
