/**
 * Vite plugin: puts what the embedder worker loads into the build, under
 * `zeromem-assets/` next to index.html — the bundled model folder and onnxruntime-web's wasm
 * files, taken from @zeromem/embed-transformers and node_modules. The app serves them
 * itself (web twin: the static server; Electron: app://), never from a CDN.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Plugin } from 'vite';
import { ONNX_WASM_FILES, bundledModelsDir, onnxWasmDir } from '@zeromem/embed-transformers';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** What the build emits: [file name in the output, source path]. */
export function embedderAssetFiles(): Array<[string, string]> {
  const models = bundledModelsDir();
  const modelFiles = filesUnder(join(models, 'zeromem-static-en')).map((path): [string, string] => [`zeromem-assets/models/${relative(models, path).split(sep).join('/')}`, path]);
  const wasm = ONNX_WASM_FILES.map((name): [string, string] => [`zeromem-assets/ort/${name}`, join(onnxWasmDir(), name)]);
  return [...modelFiles, ...wasm];
}

export function embedderAssets(): Plugin {
  return {
    name: 'zeromem-embedder-assets',
    apply: 'build',
    generateBundle(_options, bundle) {
      // onnxruntime-web names its wasm with `new URL(..., import.meta.url)` as a fallback for
      // when no `wasmPaths` is set; the worker always sets it (to zeromem-assets/ort/), so the
      // hashed copy Vite emits for that fallback is 21 MB nobody loads.
      for (const fileName of Object.keys(bundle)) if (/^assets\/ort-wasm[^/]*\.wasm$/.test(fileName)) delete bundle[fileName];
      for (const [fileName, path] of embedderAssetFiles()) this.emitFile({ type: 'asset', fileName, source: readFileSync(path) });
    },
  };
}
