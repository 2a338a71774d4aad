import type { Limits } from '../public/limits.ts';

/** The defaults of {@link Limits}. */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  maxContentBytes: 32 * 1024,
  maxTags: 32,
  maxTagLength: 128,
  maxMetadataBytes: 8 * 1024,
  maxMetadataDepth: 16,
  maxIdLength: 128,
  maxNameLength: 256,
  maxRecordsPerNamespace: Number.POSITIVE_INFINITY,
});
