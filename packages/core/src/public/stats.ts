// `stats`: per-namespace statistics.

import type { Layer, Source } from './memory-record.ts';

/** Per-namespace statistics (expired records not counted). */
export interface NamespaceStats {
  count: number;
  bySource: Record<Source, number>;
  byLayer: Record<Layer, number>;
  /** UTF-8 bytes of all contents. */
  contentBytes: number;
  oldestCreatedAt: number | null;
  newestCreatedAt: number | null;
  /** Records past their expiry that `sweep()` has not deleted yet (never returned by reads). */
  expiredPendingSweep: number;
  /** Live records per tag. */
  byTag: Record<string, number>;
}
