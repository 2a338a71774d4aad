// `history`: a record's earlier versions.

import type { JsonObject, Layer, Source } from './memory-record.ts';

/**
 * An earlier version of a record (see `history`): its state then, and who replaced it
 * with the next version and when.
 */
export interface RecordVersion {
  version: number;
  content: string;
  contentHash: string;
  source: Source;
  layer: Layer;
  tags: string[];
  metadata: JsonObject;
  importance: number;
  createdAt: number;
  updatedAt: number;
  expiresAt: number | null;
  mergedFrom: string[];
  /** When this version was replaced (epoch ms). */
  changedAt: number;
  /** Who replaced it: the actor of the update, consolidation or replicated change. */
  changedBy: string;
}
