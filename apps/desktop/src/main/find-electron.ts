/**
 * Where Electron's binary is: $ELECTRON_PATH, else the one the `electron` package downloaded
 * (its `path.txt`). CI and some machines install the package without the binary
 * (ELECTRON_SKIP_BINARY_DOWNLOAD, or pnpm not running its install script); then the answer
 * says how to get it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface ElectronLookup {
  path: string | undefined;
  problem: string | undefined;
}

export const ELECTRON_INSTALL_HINT =
  'Electron’s binary is not installed (pnpm does not run electron’s download script, and CI sets ELECTRON_SKIP_BINARY_DOWNLOAD). ' +
  'Get it with `node apps/desktop/node_modules/electron/install.js` (downloads from GitHub), or point ELECTRON_PATH at an Electron executable. ' +
  'The web twin needs none of it: `npx -y pnpm@10 app`.';

export function findElectron(appRoot: string, env: NodeJS.ProcessEnv = process.env): ElectronLookup {
  const fromEnv = env.ELECTRON_PATH?.trim();
  if (fromEnv) return existsSync(fromEnv) ? { path: fromEnv, problem: undefined } : { path: undefined, problem: `ELECTRON_PATH=${fromEnv} does not exist. ${ELECTRON_INSTALL_HINT}` };
  let packageDir: string;
  try {
    packageDir = dirname(createRequire(join(appRoot, 'package.json')).resolve('electron/package.json'));
  } catch {
    return { path: undefined, problem: `The electron package is not installed: run \`npx -y pnpm@10 install\`. ${ELECTRON_INSTALL_HINT}` };
  }
  const pathFile = join(packageDir, 'path.txt');
  if (!existsSync(pathFile)) return { path: undefined, problem: ELECTRON_INSTALL_HINT };
  const binary = join(packageDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? { path: binary, problem: undefined } : { path: undefined, problem: ELECTRON_INSTALL_HINT };
}
