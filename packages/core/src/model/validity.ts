/**
 * When a keyed fact holds. Validity is a function of the set of versions of a key in a
 * namespace, never of the order they arrived in: sorted by (validFrom, id), each version
 * holds until the next one's validFrom or the end its writer stated, whichever is earlier,
 * and the last one is current. Two replicas holding the same versions therefore agree,
 * whoever wrote first (see docs/ARCHITECTURE.md, "Facts that change").
 */

/** What the derivation needs of one version. */
export interface VersionFacts {
  id: string;
  validFrom: number;
  /** The end its writer stated, or null. */
  statedUntil: number | null;
}

/** A version's derived end. */
export interface DerivedInterval {
  validUntil: number | null;
  closedBy: string | null;
}

/** Orders versions by (validFrom, id): the last one is the current version. */
export function compareVersions(a: VersionFacts, b: VersionFacts): number {
  return a.validFrom - b.validFrom || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Every version's derived end, by id. */
export function deriveIntervals(versions: readonly VersionFacts[]): Map<string, DerivedInterval> {
  const sorted = [...versions].sort(compareVersions);
  const derived = new Map<string, DerivedInterval>();
  sorted.forEach((version, i) => {
    const next = sorted[i + 1];
    const stated = version.statedUntil;
    if (next && (stated === null || next.validFrom <= stated)) derived.set(version.id, { validUntil: next.validFrom, closedBy: next.id });
    else derived.set(version.id, { validUntil: stated, closedBy: null });
  });
  return derived;
}

/** True when the record holds at `at`: unkeyed memories always do (rows stored before keyed facts lack the fields). */
export function isValidAt(record: { key?: string | null; validFrom?: number | null; validUntil?: number | null }, at: number): boolean {
  const { key, validFrom, validUntil } = record;
  if (key === undefined || key === null || validFrom === undefined || validFrom === null) return true;
  return validFrom <= at && (validUntil === undefined || validUntil === null || at < validUntil);
}

/** A fact key: dotted segments of lower-case letters, digits, `_` and `-`. */
export const FACT_KEY = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/;
/** Longest fact key, in bytes (keys are ASCII). */
export const MAX_FACT_KEY_BYTES = 128;
/** The key rule, as error messages state it. */
export const FACT_KEY_RULE = 'must be a dotted key like "contact.channel": segments of a-z, 0-9, _ and -, joined by ".", at most 128 bytes';

/** True when `value` is a valid fact key. */
export function isFactKey(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_FACT_KEY_BYTES && FACT_KEY.test(value);
}
