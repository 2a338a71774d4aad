/**
 * The renderer's Vite config (the same files are the web twin and Electron's page).
 * `base: './'` so they work at http://127.0.0.1:5173/ and app://zeromem/ alike. Passed
 * inline by the build scripts and tests (a config file would be loaded by Node itself,
 * which cannot import the workspace packages' TypeScript sources).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InlineConfig } from 'vite';
import { cspMeta } from './csp-meta.ts';
import { embedderAssets } from './embedder-assets.ts';

export const appRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** zod's comments trip Rollup's annotation check: harmless, and noise in every build. */
export function quietAnnotations(warning: { code?: string; message: string }, warn: (w: { code?: string; message: string }) => void): void {
  if (warning.code !== 'INVALID_ANNOTATION') warn(warning);
}

export function rendererConfig(outDir = join(appRoot, 'dist')): InlineConfig {
  return {
    configFile: false,
    root: appRoot,
    base: './',
    publicDir: false,
    logLevel: 'warn',
    esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
    plugins: [cspMeta(), embedderAssets()],
    // The worker imports transformers.js dynamically: es workers can code-split, iife cannot.
    worker: { format: 'es' },
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      chunkSizeWarningLimit: 4000,
      reportCompressedSize: false,
      rollupOptions: { onwarn: quietAnnotations },
    },
  };
}
