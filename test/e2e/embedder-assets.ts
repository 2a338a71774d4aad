/**
 * A Vite plugin for the harness that self-hosts what the Web Worker embedder needs, from
 * localhost only: the bundled model folder(s) and onnxruntime-web's wasm files, read from
 * @zeromem/embed-transformers and node_modules, served raw (no Vite transform) with the
 * right MIME types. An app does the same by copying these files into its static folder.
 */
import { createReadStream, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import type { Plugin } from 'vite';
import { ONNX_WASM_FILES, bundledModelsDir, onnxWasmDir } from '@zeromem/embed-transformers';

/** URL paths the harness serves the assets at. */
export const EMBEDDER_ASSET_URLS = {
  /** `modelBaseUrl`: holds `zeromem-static-en/`. */
  models: '/zeromem-assets/models/',
  /** `wasmPaths`: holds the files of `ONNX_WASM_FILES`. */
  wasm: '/zeromem-assets/ort/',
} as const;

const MIME: Record<string, string> = {
  '.wasm': 'application/wasm',
  '.mjs': 'text/javascript',
  '.json': 'application/json',
  '.onnx': 'application/octet-stream',
  '.md': 'text/markdown; charset=utf-8',
};

/** The file under `root` that a URL path below a prefix names, or undefined (never outside `root`). */
function fileUnder(root: string, relative: string): string | undefined {
  const decoded = decodeURIComponent(relative);
  const path = normalize(join(root, decoded));
  if (!path.startsWith(root.endsWith(sep) ? root : root + sep)) return undefined;
  try {
    return statSync(path).isFile() ? path : undefined;
  } catch {
    return undefined;
  }
}

/** Serves the model folders and the onnxruntime-web wasm files (see {@link EMBEDDER_ASSET_URLS}). */
export function embedderAssets(): Plugin {
  const modelsRoot = bundledModelsDir();
  const wasmRoot = onnxWasmDir();
  const wasmFiles = new Set<string>(ONNX_WASM_FILES);
  return {
    name: 'zeromem-embedder-assets',
    configureServer(server) {
      // Registered directly (not returned): runs before Vite's own middlewares, so the .mjs is not transformed.
      server.middlewares.use((req, res, next) => {
        const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
        let file: string | undefined;
        if (pathname.startsWith(EMBEDDER_ASSET_URLS.models)) {
          const relative = pathname.slice(EMBEDDER_ASSET_URLS.models.length);
          if (!relative.startsWith('.')) file = fileUnder(modelsRoot, relative);
        } else if (pathname.startsWith(EMBEDDER_ASSET_URLS.wasm)) {
          const name = pathname.slice(EMBEDDER_ASSET_URLS.wasm.length);
          if (wasmFiles.has(name)) file = join(wasmRoot, name);
        } else return next();
        if (!file) {
          res.statusCode = 404;
          res.end('not found');
          return;
        }
        res.setHeader('Content-Type', MIME[extname(file)] ?? 'application/octet-stream');
        res.setHeader('Content-Length', String(statSync(file).size));
        res.setHeader('Cache-Control', 'no-cache');
        createReadStream(file).pipe(res);
      });
    },
  };
}
