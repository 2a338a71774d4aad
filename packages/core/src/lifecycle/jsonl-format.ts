import type { MemoryRecord, Namespace } from '../public/memory-record.ts';

/** Base64 of the vector's float32 values, little-endian whatever the machine. */
export function encodeVector(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  vector.forEach((value, i) => view.setFloat32(i * 4, value, true));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The vector of {@link encodeVector}, or `undefined` when the text is not base64 of `dimension` finite float32 values. */
export function decodeVector(text: string, dimension: number): Float32Array | undefined {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return undefined;
  }
  if (binary.length !== dimension * 4) return undefined;
  const view = new DataView(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) view.setUint8(i, binary.charCodeAt(i));
  const vector = new Float32Array(dimension);
  for (let i = 0; i < dimension; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector.every(Number.isFinite) ? vector : undefined;
}
