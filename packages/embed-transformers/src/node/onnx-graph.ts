/**
 * Reads what a static embedding model's ONNX file holds: its nodes' operator types and its
 * initializers (raw tensors), from the protobuf wire format (field numbers of onnx.proto3:
 * ModelProto.graph 7; GraphProto.node 1, initializer 5; NodeProto.op_type 4; TensorProto
 * dims 1, data_type 2, name 8, raw_data 9). Enough for the graphs
 * scripts/static-graph.ts writes; no protobuf library (the file is read once, ~10 ms).
 */

/** One initializer: its shape, ONNX data type and little-endian bytes (a view into the file). */
export interface OnnxTensor {
  dims: number[];
  dataType: number;
  raw: Uint8Array;
}

/** The parts of a model's graph the static runner checks and uses. */
export interface OnnxGraph {
  opTypes: string[];
  initializers: Map<string, OnnxTensor>;
}

const utf8 = new TextDecoder();

/** Calls `visit` for each field of the message in `bytes` (varint values as numbers, length-delimited as views). */
function fields(bytes: Uint8Array, visit: (field: number, value: number | Uint8Array) => void): void {
  let at = 0;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (at >= bytes.length) throw new Error('truncated ONNX file');
      const byte = bytes[at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
  };
  while (at < bytes.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    switch (key & 7) {
      case 0:
        visit(field, varint());
        break;
      case 1:
        at += 8;
        break;
      case 2: {
        const length = varint();
        if (at + length > bytes.length) throw new Error('truncated ONNX file');
        visit(field, bytes.subarray(at, at + length));
        at += length;
        break;
      }
      case 5:
        at += 4;
        break;
      default:
        throw new Error(`not an ONNX file (wire type ${key & 7})`);
    }
  }
}

/** A packed repeated varint field. */
function packed(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let value = 0;
  let scale = 1;
  for (const byte of bytes) {
    value += (byte & 0x7f) * scale;
    scale *= 128;
    if (byte < 0x80) {
      out.push(value);
      value = 0;
      scale = 1;
    }
  }
  return out;
}

/** @throws Error when the bytes are not a readable ONNX model */
export function readOnnxGraph(file: Uint8Array): OnnxGraph {
  const graph: OnnxGraph = { opTypes: [], initializers: new Map() };
  fields(file, (field, value) => {
    if (field !== 7 || typeof value === 'number') return;
    fields(value, (graphField, part) => {
      if (typeof part === 'number') return;
      if (graphField === 1) {
        fields(part, (nodeField, v) => {
          if (nodeField === 4 && typeof v !== 'number') graph.opTypes.push(utf8.decode(v));
        });
      } else if (graphField === 5) {
        const tensor: OnnxTensor & { name: string } = { name: '', dims: [], dataType: 0, raw: new Uint8Array() };
        fields(part, (tensorField, v) => {
          if (tensorField === 1) tensor.dims.push(...(typeof v === 'number' ? [v] : packed(v)));
          else if (tensorField === 2 && typeof v === 'number') tensor.dataType = v;
          else if (tensorField === 8 && typeof v !== 'number') tensor.name = utf8.decode(v);
          else if (tensorField === 9 && typeof v !== 'number') tensor.raw = v;
        });
        graph.initializers.set(tensor.name, { dims: tensor.dims, dataType: tensor.dataType, raw: tensor.raw });
      }
    });
  });
  return graph;
}
