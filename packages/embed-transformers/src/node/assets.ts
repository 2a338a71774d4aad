import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of this package's `models/` folder, which holds the bundled model folder(s). */
export function bundledModelsDir(): string {
  return fileURLToPath(new URL('../../models/', import.meta.url));
}

/**
 * The onnxruntime-web files a browser app must serve itself (the `wasmPaths` of
 * {@link createWorkerEmbedder}): transformers.js imports `onnxruntime-web`, whose
 * default (JSEP: WebGPU + WASM) build fetches `ort-wasm-simd-threaded.jsep.wasm` next to
 * `wasmPaths`; the `.mjs` is its loader, fetched only by builds that do not embed it.
 * The plain-WASM pair is listed for apps that alias `onnxruntime-web` to its `/wasm` build.
 */
export const ONNX_WASM_FILES = [
  'ort-wasm-simd-threaded.jsep.wasm',
  'ort-wasm-simd-threaded.jsep.mjs',
  'ort-wasm-simd-threaded.wasm',
  'ort-wasm-simd-threaded.mjs',
] as const;

/**
 * Absolute path of the `dist/` folder of the onnxruntime-web that
 * `@huggingface/transformers` depends on (the version its browser build imports), where
 * the {@link ONNX_WASM_FILES} are. Copy them to your app's static files, or serve the folder.
 */
export function onnxWasmDir(): string {
  const require = createRequire(import.meta.url);
  const transformersEntry = require.resolve('@huggingface/transformers');
  // Under the "node" condition this is dist/ort.node.min.js: the same dist/ folder.
  const ortEntry = createRequire(transformersEntry).resolve('onnxruntime-web');
  return dirname(ortEntry);
}

/** Absolute paths of the {@link ONNX_WASM_FILES}. */
export function onnxWasmFiles(): string[] {
  const dir = onnxWasmDir();
  return ONNX_WASM_FILES.map((file) => join(dir, file));
}
