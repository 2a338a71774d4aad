// The lifecycle policy (importance decay, cold tiering, sweeping) and `retier`.

import type { Duration, Namespace } from './memory-record.ts';

/** How records age: importance decay, use gain and when they go cold (resolved, in milliseconds). */
export interface LifecyclePolicy {
  /** A record not recalled, used or changed for this long may go cold. */
  coldAfterMs: number;
  /** ...if its importance (after decay) is below this. */
  coldBelowImportance: number;
  /** Importance of untouched records decays toward this floor, never below it. */
  importanceFloor: number;
  /** Half-life of the part of importance above the floor, counted while a record is untouched. */
  decayHalfLifeMs: number;
  /** `markUsed` adds this share of the distance to 1: `importance + useGain * (1 - importance)`. */
  useGain: number;
}

/** The lifecycle options of `openMemory`: every field optional, durations as ms or `"30d"`. */
export interface LifecycleOptions {
  /** Default `"30d"`. */
  coldAfter?: Duration;
  /** 0..1, default 0.3. */
  coldBelowImportance?: number;
  /** 0..1, default 0.1. */
  importanceFloor?: number;
  /** Default `"30d"`. */
  decayHalfLife?: Duration;
  /** 0..1, default 0.2. */
  useGain?: number;
}

/** Options of `retier(options)`. */
export interface RetierOptions {
  /** Only this namespace. Default: every record of the database. */
  namespace?: Namespace;
}

/** What `retier()` did. */
export interface RetierResult {
  /** Live records looked at. */
  scanned: number;
  /** Records whose importance decayed. */
  decayed: number;
  /** Records moved from hot to cold. */
  cooled: number;
}
