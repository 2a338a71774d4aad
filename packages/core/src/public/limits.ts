// The size limits a memory enforces on its inputs (`OpenMemoryOptions.limits`).

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
