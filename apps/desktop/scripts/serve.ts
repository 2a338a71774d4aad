/**
 * `npx -y pnpm@10 app`: builds the web twin and serves it on http://127.0.0.1:5173
 * (PORT and HOST override). The same files are Electron's page.
 */
import { preview } from 'vite';
import { buildRenderer } from '../build/build-app.ts';
import { rendererConfig } from '../build/renderer-config.ts';

const port = Number(process.env.PORT ?? 5173);
const host = process.env.HOST ?? '127.0.0.1';
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, got ${process.env.PORT}`);
  process.exit(2);
}
console.log('Building the zeromem web app…');
const outDir = await buildRenderer();
const server = await preview({
  ...rendererConfig(outDir),
  preview: { port, host, strictPort: true, open: false },
});
const url = server.resolvedUrls?.local[0] ?? `http://${host}:${port}/`;
console.log(`\nzeromem web app: ${url}\n(Ctrl+C stops it; the memory lives in this browser's IndexedDB for this origin.)`);
