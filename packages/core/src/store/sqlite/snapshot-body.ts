/**
 * The bytes of an index snapshot row (table `index_snapshots`, column `body`): its typed
 * arrays laid out whole, each at an offset that is a multiple of 8, after a node:v8
 * skeleton of everything else (in which each array is a reference to its place). Read
 * back, every array is a view of the row's own buffer: nothing is copied.
 *
 * node:v8 bytes of the whole row, as earlier releases stored it, put an array wherever the
 * bytes before it end, and a Float32Array or Float64Array off its alignment is copied at
 * deserialization: a 100k store's restore held its 90 MB row plus 62 MB of copies
 * (docs/benchmarks/2026-12-06-openfast.md). Those bodies are still read.
 */
import { deserialize, serialize } from 'node:v8';

/** First bytes of a body in this layout (node:v8 bytes begin with 0xFF, the serializer's version tag). */
const MAGIC = Buffer.from('zeromem-index\u0000\u0001\u0000', 'latin1');
/** Magic, then the skeleton's length (uint32 LE), then 4 bytes of padding, then the skeleton. */
const HEADER = MAGIC.length + 8;
/** The key of a reference in the skeleton: `{ [REF]: [type, byteOffset, length] }` (a key no stored object has). */
const REF = '\u0000zeromem:array';

const TYPES = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array] as const;
type Typed = InstanceType<(typeof TYPES)[number]>;

/** The body of a row (plain objects, arrays, strings, numbers and typed arrays). */
export function encodeSnapshotBody(body: object): Buffer {
  const arrays: Typed[] = [];
  let end = 0;
  const skeleton = serialize(
    replace(body, (array) => {
      const type = TYPES.findIndex((ctor) => array instanceof ctor);
      const ref = { [REF]: [type, end, array.length] };
      arrays.push(array);
      end = align(end + array.byteLength);
      return ref;
    }),
  );
  const start = align(HEADER + skeleton.byteLength);
  const out = Buffer.alloc(start + end); // zeroed padding: the same row gives the same bytes
  MAGIC.copy(out, 0);
  out.writeUInt32LE(skeleton.byteLength, MAGIC.length);
  skeleton.copy(out, HEADER);
  let at = start;
  for (const array of arrays) {
    out.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), at);
    at = align(at + array.byteLength);
  }
  return out;
}

/**
 * The row a body holds; its arrays are views of `bytes` (copied only where `bytes` itself is
 * off an 8-byte boundary). A body of node:v8 bytes of the whole row (earlier releases) is read too.
 * @throws RangeError when the body does not hang together
 */
export function decodeSnapshotBody(bytes: Buffer): object {
  if (bytes.byteLength < HEADER || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return deserialize(bytes) as object;
  const length = bytes.readUInt32LE(MAGIC.length);
  const start = align(HEADER + length);
  if (start > bytes.byteLength) throw new RangeError(`index snapshot skeleton of ${length} bytes is past the body's ${bytes.byteLength}`);
  const skeleton = deserialize(bytes.subarray(HEADER, HEADER + length)) as object;
  return revive(skeleton, ([type, offset, count]) => {
    const ctor = TYPES[type];
    if (!ctor || !(Number.isInteger(offset) && Number.isInteger(count) && offset >= 0 && count >= 0)) throw new RangeError(`bad array reference ${type}, ${offset}, ${count}`);
    const from = start + offset;
    if (from + count * ctor.BYTES_PER_ELEMENT > bytes.byteLength) throw new RangeError(`array of ${count} at ${offset} is past the body's end`);
    const at = bytes.byteOffset + from;
    if (at % ctor.BYTES_PER_ELEMENT === 0) return new ctor(bytes.buffer as ArrayBuffer, at, count);
    return new ctor(new Uint8Array(bytes.subarray(from, from + count * ctor.BYTES_PER_ELEMENT)).buffer);
  });
}

function align(n: number): number {
  return (n + 7) & ~7;
}

function isTyped(value: unknown): value is Typed {
  return ArrayBuffer.isView(value) && !(value instanceof DataView);
}

function isPlain(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** `value` with each typed array in its plain objects and arrays replaced by `ref(array)`. */
function replace(value: unknown, ref: (array: Typed) => object): unknown {
  if (isTyped(value)) return ref(value);
  if (Array.isArray(value)) return value.map((item) => replace(item, ref));
  if (isPlain(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, replace(item, ref)]));
  return value;
}

/** `value` with each reference replaced by its array. */
function revive(value: unknown, array: (ref: [number, number, number]) => Typed): object {
  const walk = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(walk);
    if (!isPlain(item)) return item;
    const ref = item[REF];
    if (Array.isArray(ref) && ref.length === 3) return array(ref as [number, number, number]);
    for (const key of Object.keys(item)) item[key] = walk(item[key]);
    return item;
  };
  return walk(value) as object;
}
