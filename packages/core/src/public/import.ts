// `importJsonl`: its options and result.

import type { LineFailure } from './errors.ts';

/** Options of `importJsonl(source, options)`. */
export interface ImportOptions {
  /** Write the good lines and return the bad ones as `failures`, instead of writing nothing. Default false. */
  skipInvalid?: boolean;
  /** Who acts, for the audit log. Default: the memory's `actor`. */
  actor?: string;
}

/** What `importJsonl()` did. */
export interface ImportResult {
  /** Records written as new. */
  imported: number;
  /** Records whose content was already stored in their namespace: the stored record stays (higher importance and later expiry kept). */
  deduplicated: number;
  /** Records already expired now: not written. */
  expired: number;
  /**
   * The first lines not imported ({@link MAX_REPORTED_LINES} at most), by line number (only
   * with `skipInvalid`; otherwise the import throws). `failed` counts them all.
   */
  failures: LineFailure[];
  /** How many lines were not imported (bad, or CONFLICT); `failures` lists the first of them. */
  failed: number;
  /** Ids of the records written as new, in file order. */
  ids: string[];
}
