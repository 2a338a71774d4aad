/** Vite plugin: writes the renderer's Content-Security-Policy (src/shared/csp.ts) into index.html. */
import type { Plugin } from 'vite';
import { WEB_CSP } from '../src/shared/csp.ts';

export function cspMeta(): Plugin {
  return {
    name: 'zeromem-csp-meta',
    transformIndexHtml: (html) => html.replace('%ZEROMEM_CSP%', WEB_CSP),
  };
}
