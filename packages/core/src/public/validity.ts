// Keyed facts read "as of" a time: which versions a read returns.

import type { TimeInput } from './memory-record.ts';

/** Reading "as of" a time: which keyed facts a read returns. Unkeyed memories always pass. */
export interface ValidityOptions {
  /** Only keyed facts that held at this time. Default: now. */
  asOf?: TimeInput;
  /** Every version of every key, closed ones too (not with `asOf`). Default false. */
  includeClosed?: boolean;
}
