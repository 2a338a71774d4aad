// `profile`: a namespace's current keyed facts.

import type { TimeInput } from './memory-record.ts';

/** One current fact of a namespace's profile (see `profile()`). */
export interface ProfileEntry {
  key: string;
  content: string;
  /** The record id of this version. */
  id: string;
  /** Since when it holds (epoch ms). */
  validFrom: number;
}

/** Options of `profile(namespace, options)`. */
export interface ProfileOptions {
  /** The facts that held at this time. Default: now. */
  asOf?: TimeInput;
}
