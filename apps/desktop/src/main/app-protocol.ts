/**
 * The renderer is served from `app://zeromem/`, a privileged standard scheme, not from
 * file:// (which has an opaque origin: no module workers, no fetch of the model files, one
 * IndexedDB origin for every local file). Only files under the built renderer folder are
 * served, each with the strict CSP as a header.
 */
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { CustomScheme } from 'electron';
import { ELECTRON_CSP } from '../shared/csp.ts';

export const APP_SCHEME = 'app';
export const APP_HOST = 'zeromem';
/** Where the window starts. */
export const APP_START_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/** For `protocol.registerSchemesAsPrivileged` (before the app is ready). */
export const APP_SCHEME_DEFINITION: CustomScheme = {
  scheme: APP_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true, codeCache: true },
};

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** True for a URL inside the app (the only place the window may navigate to). */
export function isAppUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST;
  } catch {
    return false;
  }
}

/**
 * The file under `root` an app:// URL names, or undefined for another host, a path that
 * leaves `root` (also when percent-encoded) or a malformed URL. `/` is `index.html`.
 */
export function resolveAppFile(root: string, requestUrl: string): string | undefined {
  if (!isAppUrl(requestUrl)) return undefined;
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(requestUrl).pathname);
  } catch {
    return undefined;
  }
  if (pathname.includes('\0')) return undefined;
  if (pathname === '/' || pathname === '') pathname = '/index.html';
  const base = normalize(root.endsWith(sep) ? root : root + sep);
  const file = normalize(join(base, pathname));
  return file.startsWith(base) ? file : undefined;
}

/** Headers of a served file. */
export function appResponseHeaders(file: string): Record<string, string> {
  return {
    'Content-Type': MIME[extname(file).toLowerCase()] ?? 'application/octet-stream',
    'Content-Security-Policy': ELECTRON_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };
}

/** The `protocol.handle(APP_SCHEME, …)` handler: 404 for anything outside `root`. */
export function createAppProtocolHandler(root: string): (request: Request) => Promise<Response> {
  return async (request) => {
    const file = resolveAppFile(root, request.url);
    if (!file) return new Response('not found', { status: 404 });
    try {
      const body = await readFile(file);
      return new Response(new Uint8Array(body), { status: 200, headers: appResponseHeaders(file) });
    } catch {
      return new Response('not found', { status: 404 });
    }
  };
}
