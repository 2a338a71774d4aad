/**
 * Builds the app: the renderer (web twin and Electron page) into dist/, and the Electron main
 * process (ESM) and preload (CommonJS: a sandboxed preload cannot load ES modules) into
 * dist-electron/.
 */
import { join } from 'node:path';
import { build, type InlineConfig } from 'vite';
import { appRoot, quietAnnotations, rendererConfig } from './renderer-config.ts';

export { appRoot };

/** Builds the renderer into `outDir` (default dist/). */
export async function buildRenderer(outDir = join(appRoot, 'dist')): Promise<string> {
  await build(rendererConfig(outDir));
  return outDir;
}

function nodeBundle(entry: string, fileName: string, format: 'es' | 'cjs', external: string[]): InlineConfig {
  return {
    configFile: false,
    root: appRoot,
    logLevel: 'warn',
    publicDir: false,
    build: {
      outDir: join(appRoot, 'dist-electron'),
      emptyOutDir: false,
      target: 'node20',
      minify: false,
      ssr: true,
      lib: { entry: join(appRoot, entry), formats: [format], fileName: () => fileName },
      rollupOptions: { external, onwarn: quietAnnotations },
    },
    ssr: { noExternal: true, external },
  };
}

/** Builds dist-electron/main.js and dist-electron/preload.cjs. */
export async function buildElectron(): Promise<void> {
  // better-sqlite3 (the device store's engine, through core's Node entry) is a native module: loaded from node_modules, not bundled.
  const nodeBuiltins = [/^node:/, 'electron', 'better-sqlite3'];
  await build(nodeBundle('src/main/main.ts', 'main.js', 'es', nodeBuiltins as unknown as string[]));
  await build(nodeBundle('src/preload/preload.ts', 'preload.cjs', 'cjs', ['electron']));
}
