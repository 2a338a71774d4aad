import type { MemoryRecord } from '../public/memory-record.ts';
import { statedValues, valueDifferences } from './value-differences.ts';

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
 * tags, state the same values (value-differences.ts), and have cosine similarity >=
 * `threshold` (both with vectors) or equal {@link looseText} (otherwise). Only groups of two or more are returned.
 */
export function groupNearDuplicates(candidates: readonly Candidate[], threshold: number): NearDuplicateGroup[] {
  const sorted = [...candidates].sort((a, b) => a.record.createdAt - b.record.createdAt || (a.record.id < b.record.id ? -1 : a.record.id > b.record.id ? 1 : 0));
  const loose = sorted.map((c) => looseText(c.record.content));
  // Two memories that state different values are a possible update, never one fact.
  const values = sorted.map((c) => statedValues(c.record.content));
  // Text matches by bucket (linear); vector matches by a scan of the packed vectors (quadratic, tight loop).
  const buckets = new Map<string, number[]>();
  loose.forEach((text, i) => {
    if (text === '') return;
    const bucket = buckets.get(text);
    if (bucket) bucket.push(i);
    else buckets.set(text, [i]);
  });
  const dimension = sorted.find((c) => c.vector)?.vector?.length ?? 0;
  const packed = new Float32Array(sorted.length * dimension);
  const hasVector = sorted.map((c, i) => {
    if (!c.vector || c.vector.length !== dimension) return false;
    packed.set(c.vector, i * dimension);
    return true;
  });
  const cosine = (i: number, j: number) => {
    let dot = 0;
    for (let k = 0, a = i * dimension, b = j * dimension; k < dimension; k++) dot += packed[a + k]! * packed[b + k]!;
    return dot;
  };
  const compare = (i: number, j: number): number | null | false => {
    const a = sorted[i]!.record;
    const b = sorted[j]!.record;
    if (a.layer !== b.layer || !tagsOverlap(a.tags, b.tags) || valueDifferences(values[i]!, values[j]!).length) return false;
    if (hasVector[i] && hasVector[j]) {
      const score = cosine(i, j);
      return score >= threshold ? score : false;
    }
    return loose[i] !== '' && loose[i] === loose[j] ? null : false;
  };

  const grouped = new Uint8Array(sorted.length);
  const groups: NearDuplicateGroup[] = [];
  for (let i = 0; i < sorted.length; i++) {
    if (grouped[i]) continue;
    const near = new Set<number>(buckets.get(loose[i]!)?.filter((j) => j > i) ?? []);
    if (hasVector[i]) for (let j = i + 1; j < sorted.length; j++) if (hasVector[j] && !grouped[j] && cosine(i, j) >= threshold) near.add(j);
    const members = [i];
    let similarity: number | null = Number.POSITIVE_INFINITY;
    for (const j of [...near].sort((x, y) => x - y)) {
      if (grouped[j]) continue;
      const scores = members.map((m) => compare(m, j));
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
