/**
 * `npx -y pnpm@10 desktop`: builds the app and starts Electron on it, where Electron's
 * binary is installed; otherwise says what to install and exits 1. Further arguments go to
 * Electron (as root on Linux Chromium needs `-- --no-sandbox`).
 */
import { spawn } from 'node:child_process';
import { appRoot, buildElectron, buildRenderer } from '../build/build-app.ts';
import { findElectron } from '../src/main/find-electron.ts';

const found = findElectron(appRoot);
if (!found.path) {
  console.error(found.problem);
  process.exit(1);
}
console.log('Building the zeromem desktop app…');
await buildRenderer();
await buildElectron();
console.log(`Starting ${found.path}`);
const child = spawn(found.path, [appRoot, ...process.argv.slice(2)], { stdio: 'inherit', env: { ...process.env, ELECTRON_RUN_AS_NODE: undefined } });
child.on('exit', (code) => process.exit(code ?? 0));
