// `consolidate`: merging near-duplicates, its options, groups and suggestions.

import type { MemoryRecord } from './memory-record.ts';
import type { SuggestedUpdate } from './remember.ts';

/** A suggestion of `consolidate()`: `by` (the newer memory) may be a new value of `id`. */
export interface ConsolidateSuggestion extends SuggestedUpdate {
  /** The newer memory, which may replace `id`. */
  by: string;
}

/** Options of `consolidate(namespace, options)`. */
export interface ConsolidateOptions {
  /** Cosine similarity from which two records are one fact, 0..1. Default {@link DEFAULT_CONSOLIDATE_THRESHOLD}. */
  threshold?: number;
  /** Only plan: return the groups, write nothing. Default false. */
  dryRun?: boolean;
  /** Who acts, for the audit log. Default: the memory's `actor`. */
  actor?: string;
}

/** One merge: `keepId` survives as `record`; `mergedIds` are forgotten into it. */
export interface ConsolidationGroup {
  keepId: string;
  /** Oldest first. */
  mergedIds: string[];
  /** Lowest cosine similarity within the group, or `null` when some members had no vector and matched by text. */
  similarity: number | null;
  /** The record after the merge (with `dryRun`, what it would be). */
  record: MemoryRecord;
}

/** What `consolidate()` returns. */
export interface ConsolidateResult {
  dryRun: boolean;
  threshold: number;
  /** The merges, in the order of their oldest member. */
  groups: ConsolidationGroup[];
  /** Groups not merged because a member changed or went away while planning (merge again to retry). */
  skipped: ConsolidationGroup[];
  /**
   * Pairs that read as one statement with another value (a number, date, name or
   * negation): never merged, only reported; `by` may be a new value of `id`. Confirm by
   * writing it as a keyed fact, or update or forget the old one.
   */
  suggestedUpdates: ConsolidateSuggestion[];
}
