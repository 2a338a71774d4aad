import { canonicalJson } from '@zeromem/core/internal';

/** The parts of a record state the merge rule reads. */
interface Stamped {
  updatedAt?: unknown;
  version?: unknown;
}

/**
 * The merge rule for two states of one record: the newer wins. Newer means a later
 * `updatedAt`, then a higher `version`, then the greater canonical JSON text, so every
 * replica picks the same winner whatever order the states arrive in.
 */
export function isNewer(a: Stamped, b: Stamped): boolean {
  const byTime = compareNumbers(a.updatedAt, b.updatedAt);
  if (byTime !== 0) return byTime > 0;
  const byVersion = compareNumbers(a.version, b.version);
  if (byVersion !== 0) return byVersion > 0;
  return canonicalJson(a) > canonicalJson(b);
}

/** Numbers compare as numbers; a state without a valid number is older than any with one. */
function compareNumbers(a: unknown, b: unknown): number {
  const x = typeof a === 'number' && Number.isFinite(a) ? a : -Infinity;
  const y = typeof b === 'number' && Number.isFinite(b) ? b : -Infinity;
  return x === y ? 0 : x > y ? 1 : -1;
}
