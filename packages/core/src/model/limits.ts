/** Size limits on what a caller can store. Every one has a default; pass a partial object to change some. */
export interface Limits {
  /** UTF-8 bytes of `content`. Default 32 KiB. */
  maxContentBytes: number;
  /** Tags per record. Default 32. */
  maxTags: number;
  /** Characters per tag. Default 128. */
  maxTagLength: number;
  /** UTF-8 bytes of `JSON.stringify(metadata)`. Default 8 KiB. */
  maxMetadataBytes: number;
  /** Nesting depth of metadata. Default 16. */
  maxMetadataDepth: number;
  /** Characters of an id. Default 128. */
  maxIdLength: number;
  /** Characters of `userId`, `agentId`, `scope`, `actor`. Default 256. */
  maxNameLength: number;
  /** Live records per namespace before writes get QUOTA_EXCEEDED. Default: no limit. */
  maxRecordsPerNamespace: number;
}

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
