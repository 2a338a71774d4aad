/**
 * The browser harness page: loads @zeromem/core (its TypeScript source, served by Vite
 * through the workspace link) and exposes it for Playwright's `page.evaluate`.
 */
import { ZeromemError, isZeromemError, openMemory } from '@zeromem/core';
import * as bench from './bench.ts';

/** What `window.zeromem` holds. */
export interface ZeromemGlobal {
  openMemory: typeof openMemory;
  ZeromemError: typeof ZeromemError;
  isZeromemError: typeof isZeromemError;
  /** Free space for tests to keep state between `page.evaluate` calls (open memories, watch logs). */
  scratch: Record<string, unknown>;
  /** True once this module has run. */
  ready: boolean;
}

declare global {
  interface Window {
    zeromem: ZeromemGlobal;
    zeromemBench: typeof bench;
  }
}

window.zeromemBench = bench;
window.zeromem = { openMemory, ZeromemError, isZeromemError, scratch: {}, ready: true };
