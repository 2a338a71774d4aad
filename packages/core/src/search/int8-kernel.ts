/**
 * Int8 dot products of many packed rows with one query: the coarse pass of
 * {@link VectorIndex}'s search. Two interchangeable implementations that return the same
 * integers (the sums are exact): WebAssembly SIMD (int8-dot.wat, ~10x faster) where the
 * platform allows it, plain JavaScript otherwise (no SIMD, or a Content-Security-Policy
 * without `wasm-unsafe-eval`).
 */
export interface Int8Kernel {
  /** Which implementation runs. */
  readonly kind: 'wasm-simd' | 'js';
  /** The kernel's memory. Read it again after {@link ensure}: growing may replace it. */
  readonly buffer: ArrayBuffer;
  /** Makes the memory at least `bytes` long; the content is kept. */
  ensure(bytes: number): void;
  /**
   * For r in 0..n-1: Int32 at `out + 4r` = Σ_j int8 at `rows + r*stride + j` × int8 at `q + j`,
   * j < length. Values must lie in [-127, 127]; `stride` and `length` multiples of 16 with
   * 16 <= length <= stride, `out` a multiple of 4. A `length` below `stride` reads only the
   * first `length` bytes of each row: the part of the rows where the query is not zero.
   */
  dot(rows: number, n: number, stride: number, length: number, q: number, out: number): void;
}

/** Which kernel to use: the fastest available (`auto`), or one on purpose (tests, benchmarks). */
export type KernelChoice = 'auto' | 'wasm' | 'js';

/** int8-dot.wat compiled with wabt 1.0.39 (231 bytes). */
const WASM_BASE64 =
  'AGFzbQEAAAABCgFgBn9/f39/fwADAgEABQMBAAEHEAIGbWVtb3J5AgADZG90AAAKtQEBsgECBX8DeyAAIAEgAmxqIQYgACEHAkADQCAHIAZPDQEgByEIIAggA2ohCSAEIQr9DAAAAAAAAAAAAAAAAAAAAAAhCwNAIAj9AAQAIQwgCv0ABAAhDSALIAwgDf2cASAMIA39nQH9jgH9fv2uASELIAhBEGohCCAKQRBqIQogCCAJSQ0ACyAFIAv9GwAgC/0bAWogC/0bAiAL/RsDamo2AgAgBUEEaiEFIAcgAmohBwwACwsL';

const PAGE = 65536;

let compiled: WebAssembly.Module | null | undefined;

/** The compiled module, or null where WebAssembly SIMD cannot run here. Compiled once. */
function wasmModule(): WebAssembly.Module | null {
  if (compiled !== undefined) return compiled;
  compiled = null;
  try {
    if (typeof WebAssembly === 'object') {
      const bytes = decodeBase64(WASM_BASE64);
      // validate() is false without SIMD; the constructor throws under a CSP that forbids it.
      if (WebAssembly.validate(bytes)) compiled = new WebAssembly.Module(bytes);
    }
  } catch {
    compiled = null; // no WebAssembly here: the JS kernel computes the same numbers
  }
  return compiled;
}

/** True when the WebAssembly SIMD kernel can run on this platform. */
export function wasmSimdAvailable(): boolean {
  return wasmModule() !== null;
}

/** A kernel of the chosen kind; `auto` is WebAssembly SIMD when available, JS otherwise. */
export function createInt8Kernel(choice: KernelChoice = 'auto'): Int8Kernel {
  if (choice !== 'js') {
    const module = wasmModule();
    if (module) return new WasmKernel(module);
    if (choice === 'wasm') throw new Error('WebAssembly SIMD is not available on this platform');
  }
  return new JsKernel();
}

class WasmKernel implements Int8Kernel {
  readonly kind = 'wasm-simd';
  readonly #memory: WebAssembly.Memory;
  readonly #dot: (rows: number, n: number, stride: number, length: number, q: number, out: number) => void;

  constructor(module: WebAssembly.Module) {
    const instance = new WebAssembly.Instance(module, {});
    this.#memory = instance.exports['memory'] as WebAssembly.Memory;
    this.#dot = instance.exports['dot'] as (rows: number, n: number, stride: number, length: number, q: number, out: number) => void;
  }

  get buffer(): ArrayBuffer {
    return this.#memory.buffer;
  }

  ensure(bytes: number): void {
    const have = this.#memory.buffer.byteLength;
    if (bytes > have) this.#memory.grow(Math.ceil((bytes - have) / PAGE));
  }

  dot(rows: number, n: number, stride: number, length: number, q: number, out: number): void {
    this.#dot(rows, n, stride, length, q, out);
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

class JsKernel implements Int8Kernel {
  readonly kind = 'js';
  #buffer = new ArrayBuffer(PAGE);

  get buffer(): ArrayBuffer {
    return this.#buffer;
  }

  ensure(bytes: number): void {
    if (bytes <= this.#buffer.byteLength) return;
    const grown = new ArrayBuffer(Math.ceil(Math.max(bytes, this.#buffer.byteLength * 1.5) / PAGE) * PAGE);
    new Uint8Array(grown).set(new Uint8Array(this.#buffer));
    this.#buffer = grown;
  }

  dot(rows: number, n: number, stride: number, length: number, q: number, out: number): void {
    if (n <= 0) return;
    const query = new Int8Array(this.#buffer, q, length);
    const result = new Int32Array(this.#buffer, out, n);
    if (!LITTLE_ENDIAN || rows % 4 !== 0) {
      const bytes = new Int8Array(this.#buffer);
      for (let r = 0, base = rows; r < n; r++, base += stride) {
        let sum = 0;
        for (let j = 0; j < length; j++) sum += bytes[base + j]! * query[j]!;
        result[r] = sum;
      }
      return;
    }
    // Four int8 per 32-bit word (little-endian: byte 0 in the low bits), unpacked by shifts.
    const qi = Int32Array.from(query);
    const words = new Int32Array(this.#buffer, rows, ((n - 1) * stride + length) >> 2);
    const wordsPerRow = stride >> 2;
    const wordsRead = length >> 2;
    for (let r = 0, base = 0; r < n; r++, base += wordsPerRow) {
      let s0 = 0;
      let s1 = 0;
      for (let w = 0, j = 0; w < wordsRead; w++, j += 4) {
        const word = words[base + w]!;
        s0 = (s0 + ((word << 24) >> 24) * qi[j]! + ((word << 16) >> 24) * qi[j + 1]!) | 0;
        s1 = (s1 + ((word << 8) >> 24) * qi[j + 2]! + (word >> 24) * qi[j + 3]!) | 0;
      }
      result[r] = s0 + s1;
    }
  }
}

function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
