import { cpSync, mkdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { DEFAULT_MODEL, bundledModelsDir, onnxWasmFiles } from '@zeromem/embed-transformers';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Ships the embedder's files inside the extension (MV3 allows no remote code): the bundled
 * model folder at /models/ and onnxruntime-web's wasm + its loader at /ort/, the URLs
 * src/embedder.ts passes as `modelBaseUrl` and `wasmPaths`.
 */
function embedderFiles(): Plugin {
  let outDir = '';
  return {
    name: 'zeromem-extension-embedder-files',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir); // `--outDir` may move it
    },
    // onnxruntime-web names its wasm with `new URL(…, import.meta.url)`, so Vite emits a
    // second 21.6 MB copy; with `wasmPaths` set it is never fetched: leave it out.
    generateBundle(_options, bundle) {
      for (const name of Object.keys(bundle)) if (/ort-wasm[^/]*\.wasm$/.test(name)) delete bundle[name];
    },
    writeBundle() {
      // The English model only (7.4 MB): browsers run no Chinese model (the 24 MB one stays in Node).
      cpSync(join(bundledModelsDir(), DEFAULT_MODEL), join(outDir, 'models', DEFAULT_MODEL), { recursive: true });
      mkdirSync(join(outDir, 'ort'), { recursive: true });
      // Only the JSEP pair: the one transformers.js's browser build loads.
      for (const file of onnxWasmFiles().filter((f) => f.includes('.jsep.'))) cpSync(file, join(outDir, 'ort', basename(file)));
    },
  };
}

// Pages and the service worker are built together; the worker imports nothing from the
// SDK (it opens the side panel and reads the current page), so it stays a small module
// with static imports only. The embedder worker loads transformers.js with a dynamic
// import, which extension pages and their workers allow: it needs the `es` worker format.
export default defineConfig({
  root: join(here, 'src'),
  publicDir: join(here, 'public'),
  plugins: [embedderFiles()],
  worker: { format: 'es' },
  build: {
    outDir: join(here, 'dist'),
    emptyOutDir: true,
    target: 'es2022',
    rollupOptions: {
      input: {
        sidepanel: join(here, 'src/sidepanel.html'),
        options: join(here, 'src/options.html'),
        'service-worker': join(here, 'src/service-worker.ts'),
      },
      output: { entryFileNames: '[name].js' },
    },
  },
});
