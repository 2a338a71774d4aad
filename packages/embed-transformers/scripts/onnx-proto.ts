/**
 * A minimal ONNX protobuf writer: just enough of onnx.proto3 (ModelProto, GraphProto,
 * NodeProto, TensorProto, ValueInfoProto, AttributeProto) to emit the static-embedding
 * graph and the BERT encoder converted from safetensors (bert-graph.ts). No dependency on protobufjs or the onnx Python package, so the build runs
 * anywhere Node runs.
 *
 * Field numbers follow https://github.com/onnx/onnx/blob/main/onnx/onnx.proto3.
 */

/** ONNX TensorProto.DataType values used here. */
export const DataType = { FLOAT: 1, UINT8: 2, INT8: 3, INT32: 6, INT64: 7, FLOAT16: 10 } as const;
export type DataTypeCode = (typeof DataType)[keyof typeof DataType];

/** AttributeProto.AttributeType values used here. */
const AttrType = { FLOAT: 1, INT: 2, INTS: 7 } as const;

class Writer {
  private chunks: Uint8Array[] = [];
  private length = 0;

  private push(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.length += bytes.length;
  }

  /** Unsigned varint of a non-negative integer (or a bigint, two's complement for negatives). */
  varint(value: number | bigint): this {
    let v = BigInt.asUintN(64, BigInt(value));
    const out: number[] = [];
    while (v >= 0x80n) {
      out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    out.push(Number(v));
    this.push(Uint8Array.from(out));
    return this;
  }

  private tag(field: number, wireType: 0 | 2 | 5): this {
    return this.varint((field << 3) | wireType);
  }

  int(field: number, value: number | bigint): this {
    return this.tag(field, 0).varint(value);
  }

  float(field: number, value: number): this {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.tag(field, 5);
    this.push(b);
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, 2).varint(value.length);
    this.push(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  message(field: number, build: (w: Writer) => void): this {
    const inner = new Writer();
    build(inner);
    return this.bytes(field, inner.finish());
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.length);
    let offset = 0;
    for (const c of this.chunks) {
      out.set(c, offset);
      offset += c.length;
    }
    return out;
  }
}

export interface TensorInit {
  name: string;
  dataType: DataTypeCode;
  dims: number[];
  /** Little-endian raw bytes, as ONNX `raw_data` expects. */
  raw: Uint8Array;
}

export type Attribute =
  | { name: string; int: number }
  | { name: string; float: number }
  | { name: string; ints: number[] };

export interface NodeDef {
  opType: string;
  inputs: string[];
  outputs: string[];
  name?: string;
  attributes?: Attribute[];
}

export interface ValueInfo {
  name: string;
  elemType: DataTypeCode;
  /** A number is a fixed dimension, a string a symbolic one (dim_param). */
  shape: Array<number | string>;
}

export interface ModelDef {
  graphName: string;
  nodes: NodeDef[];
  initializers: TensorInit[];
  inputs: ValueInfo[];
  outputs: ValueInfo[];
  opsetVersion: number;
  irVersion: number;
  producerName: string;
  producerVersion: string;
  docString?: string;
}

function writeTensor(w: Writer, t: TensorInit): void {
  for (const d of t.dims) w.int(1, d); // dims (repeated int64, unpacked is valid)
  w.int(2, t.dataType); // data_type
  w.string(8, t.name); // name
  w.bytes(9, t.raw); // raw_data
}

function writeValueInfo(w: Writer, v: ValueInfo): void {
  w.string(1, v.name);
  w.message(2, (type) => {
    type.message(1, (tensor) => {
      tensor.int(1, v.elemType);
      tensor.message(2, (shape) => {
        for (const d of v.shape) {
          shape.message(1, (dim) => {
            if (typeof d === 'number') dim.int(1, d);
            else dim.string(2, d);
          });
        }
      });
    });
  });
}

function writeNode(w: Writer, n: NodeDef): void {
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  if (n.name) w.string(3, n.name);
  w.string(4, n.opType);
  for (const a of n.attributes ?? []) {
    w.message(5, (attr) => {
      attr.string(1, a.name);
      if ('int' in a) {
        attr.int(3, a.int);
        attr.int(20, AttrType.INT);
      } else if ('float' in a) {
        attr.float(2, a.float);
        attr.int(20, AttrType.FLOAT);
      } else {
        for (const x of a.ints) attr.int(8, x);
        attr.int(20, AttrType.INTS);
      }
    });
  }
}

/** Serialises a ModelProto. */
export function encodeModel(m: ModelDef): Uint8Array {
  const w = new Writer();
  w.int(1, m.irVersion); // ir_version
  w.string(2, m.producerName);
  w.string(3, m.producerVersion);
  if (m.docString) w.string(6, m.docString);
  w.message(7, (g) => {
    for (const n of m.nodes) g.message(1, (x) => writeNode(x, n));
    g.string(2, m.graphName);
    for (const t of m.initializers) g.message(5, (x) => writeTensor(x, t));
    for (const v of m.inputs) g.message(11, (x) => writeValueInfo(x, v));
    for (const v of m.outputs) g.message(12, (x) => writeValueInfo(x, v));
  });
  w.message(8, (o) => {
    o.string(1, '');
    o.int(2, m.opsetVersion);
  });
  return w.finish();
}

/** Little-endian bytes of typed-array data (Node and browsers are little-endian in practice; checked). */
export function rawBytes(a: Float32Array | Int8Array | BigInt64Array | Uint16Array): Uint8Array {
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) {
    throw new Error('big-endian hosts are not supported by this writer');
  }
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}
