/**
 * The browser harness page: loads @zeromem/core and @zeromem/sync (TypeScript source, served by Vite
 * through the workspace link) and exposes it for Playwright's `page.evaluate`.
 */
import { ZeromemError, isZeromemError, openMemory } from '@zeromem/core';
import { generateNamespaceKey, shareNamespace } from '@zeromem/sync';
import * as bench from './bench.ts';
import * as contextBench from './context-bench.ts';

/** What `window.zeromem` holds. */
export interface ZeromemGlobal {
  openMemory: typeof openMemory;
  ZeromemError: typeof ZeromemError;
  isZeromemError: typeof isZeromemError;
  /** `@zeromem/sync`, with the browser's own WebSocket. */
  shareNamespace: typeof shareNamespace;
  generateNamespaceKey: typeof generateNamespaceKey;
  /** Free space for tests to keep state between `page.evaluate` calls (open memories, watch logs). */
  scratch: Record<string, unknown>;
  /** True once this module has run. */
  ready: boolean;
}

declare global {
  interface Window {
    zeromem: ZeromemGlobal;
    zeromemBench: typeof bench;
    zeromemContextBench: typeof contextBench;
  }
}

window.zeromemBench = bench;
window.zeromemContextBench = contextBench;
window.zeromem = { openMemory, ZeromemError, isZeromemError, shareNamespace, generateNamespaceKey, scratch: {}, ready: true };
