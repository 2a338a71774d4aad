// `update`: the patch and its options.

import type { Duration, JsonObject, Layer, Source, TimeInput } from './memory-record.ts';
import type { WriteOptions } from './remember.ts';

/** A partial change to a record. Fields left out stay as they are; `metadata` and `tags` are replaced whole. */
export interface UpdatePatch {
  content?: string;
  source?: Source;
  layer?: Layer;
  tags?: string[];
  metadata?: JsonObject;
  importance?: number;
  /** `null` removes the expiry. Give this or `ttl`, not both. */
  expiresAt?: TimeInput | null;
  /** New expiry relative to now. */
  ttl?: Duration;
}

/** Options of `update`. */
export interface UpdateOptions extends WriteOptions {
  /** Refuse with CONFLICT unless the stored record has this version. */
  ifVersion?: number;
}
