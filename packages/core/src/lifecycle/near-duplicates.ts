import type { MemoryRecord } from '../model/types.ts';

/** A record and its stored unit vector (`null`/`undefined`: none, compared by loose text instead). */
export interface Candidate {
  record: MemoryRecord;
  vector: Float32Array | null | undefined;
}

/** A planned merge: records that are all near-duplicates of each other, oldest first. */
export interface NearDuplicateGroup {
  members: MemoryRecord[];
  /** Lowest cosine similarity between two members, or `null` when some were compared by text. */
  similarity: number | null;
}

/**
 * The text compared when a record has no vector: NFKC, lower case, letters and digits only
 * ("Prefers phone calls." and "prefers phone-calls" match). Exact duplicates never get
 * this far: the store keeps one record per normalized content.
 */
export function looseText(content: string): string {
  return content.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * Tags overlap when the records share a tag, or when neither has any (two untagged notes
 * can be the same fact; a tagged and an untagged one are kept apart).
 */
export function tagsOverlap(a: readonly string[], b: readonly string[]): boolean {
  if (a.length === 0 || b.length === 0) return a.length === b.length;
  return a.some((tag) => b.includes(tag));
}

/**
 * Groups near-duplicates, deterministically: records in (createdAt, id) order; each
 * record not yet grouped starts a group, and every later ungrouped record that is a
 * near-duplicate of all members so far joins it (complete linkage: no chains of
 * "similar to the previous one"). Near-duplicates share the layer, have overlapping
 * tags, and have cosine similarity >= `threshold` (both with vectors) or equal
 * {@link looseText} (otherwise). Only groups of two or more are returned.
 */
export function groupNearDuplicates(candidates: readonly Candidate[], threshold: number): NearDuplicateGroup[] {
  const sorted = [...candidates].sort((a, b) => a.record.createdAt - b.record.createdAt || (a.record.id < b.record.id ? -1 : a.record.id > b.record.id ? 1 : 0));
  const loose = sorted.map((c) => looseText(c.record.content));
  const grouped = new Uint8Array(sorted.length);
  const groups: NearDuplicateGroup[] = [];
  for (let i = 0; i < sorted.length; i++) {
    if (grouped[i]) continue;
    const members = [i];
    let similarity: number | null = Number.POSITIVE_INFINITY;
    for (let j = i + 1; j < sorted.length; j++) {
      if (grouped[j]) continue;
      const scores = members.map((m) => compare(sorted[m]!, sorted[j]!, loose[m]!, loose[j]!, threshold));
      if (scores.includes(false)) continue;
      members.push(j);
      for (const score of scores) similarity = score === null || similarity === null ? null : Math.min(similarity, score as number);
    }
    if (members.length < 2) continue;
    for (const m of members) grouped[m] = 1;
    groups.push({ members: members.map((m) => sorted[m]!.record), similarity });
  }
  return groups;
}

/** The cosine of a near-duplicate pair, `null` for a pair matched by text, `false` for no match. */
function compare(a: Candidate, b: Candidate, looseA: string, looseB: string, threshold: number): number | null | false {
  if (a.record.layer !== b.record.layer || !tagsOverlap(a.record.tags, b.record.tags)) return false;
  if (a.vector && b.vector && a.vector.length === b.vector.length) {
    let dot = 0;
    for (let k = 0; k < a.vector.length; k++) dot += a.vector[k]! * b.vector[k]!;
    return dot >= threshold ? dot : false;
  }
  return looseA !== '' && looseA === looseB ? null : false;
}
