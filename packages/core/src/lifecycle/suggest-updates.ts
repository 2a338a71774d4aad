import type { SuggestedUpdate } from '../public/remember.ts';
import type { MemoryRecord } from '../public/memory-record.ts';
import { isValidAt } from '../model/validity.ts';
import { isExpired } from '../store/row.ts';
import type { RecallContext } from '../write/verb-context.ts';
import { tagsOverlap } from './near-duplicates.ts';
import { statedValues, valueDifferences, wordOverlap, type StatedValues } from './value-differences.ts';
import type { ConsolidateSuggestion } from '../public/consolidate.ts';

/**
 * Word overlap (Jaccard of BM25 tokens, values left out) from which two memories read as
 * one statement with another value. Measured on test/bench/data/facts-changed (see
 * docs/BENCHMARKS.md, "Facts that change").
 */
export const SUGGEST_WORD_OVERLAP = 0.5;
/** Lexical candidates a write is compared with. */
const CANDIDATES = 20;

/** A memory and what it states, ready to compare. */
export interface Stated {
  record: MemoryRecord;
  values: StatedValues;
}

/** Reads the values of a record once, for many comparisons. */
export function stated(record: MemoryRecord): Stated {
  return { record, values: statedValues(record.content) };
}

/**
 * The suggestion if `newer` looks like a new value of `older`: one layer, overlapping tags
 * (the consolidation rules), near-duplicates by vector (their cosine at or over the
 * consolidation threshold, when both have one) or by words (overlap at or over
 * {@link SUGGEST_WORD_OVERLAP}), and differing in a number, date, name or negation. Never
 * more than a suggestion: nothing is closed on a guess.
 */
export function suggestion(newer: Stated, older: Stated, vector?: { cosine: number; threshold: number }): SuggestedUpdate | undefined {
  const cosine = vector && vector.cosine >= vector.threshold ? vector.cosine : undefined;
  const a = newer.record;
  const b = older.record;
  if (a.id === b.id || a.layer !== b.layer || !tagsOverlap(a.tags, b.tags)) return undefined;
  const overlap = wordOverlap(newer.values, older.values);
  const near = cosine !== undefined || overlap >= SUGGEST_WORD_OVERLAP;
  if (!near) return undefined;
  const differs = valueDifferences(newer.values, older.values);
  if (!differs.length) return undefined;
  const measure = cosine !== undefined ? `cosine ${cosine.toFixed(2)}` : `word overlap ${overlap.toFixed(2)}`;
  return { id: b.id, reason: `states the same as ${b.id} (${measure}) with a different ${differs.join(', ')}: a new value of it? Confirm by writing it as a keyed fact, or update or forget the old one`, differs };
}

/**
 * What an unkeyed write may update: the live memories of its namespace that its own words
 * find (BM25, the namespace's search index) and that {@link suggestion} accepts, best
 * match first. Keyed facts count while they hold.
 */
export async function suggestUpdates(ctx: RecallContext, record: MemoryRecord): Promise<SuggestedUpdate[]> {
  if (record.key !== null || !record.content.trim()) return [];
  const index = await ctx.indexes.ready(record.namespaceKey);
  const now = ctx.clock.now();
  const newer = stated(record);
  const found: SuggestedUpdate[] = [];
  for (const hit of index.text.search(record.content, CANDIDATES + 1)) {
    const other = index.records.get(hit.id);
    if (!other || other.id === record.id || isExpired(other, now) || other.tier === 'cold' || !isValidAt(other, now)) continue;
    const update = suggestion(newer, stated(other));
    if (update) found.push(update);
  }
  return found;
}

/** A word in more memories than this finds no pairs (it says nothing about which two belong together). */
const COMMON_WORD = 200;

/**
 * Every pair of the namespace's memories that {@link suggestion} accepts, the newer one
 * (createdAt, id) suggesting it updates the older. Pairs come from shared words, not from
 * comparing all with all; `vector(i)` is candidate i's unit vector, when stored.
 */
export function suggestAmong(records: readonly MemoryRecord[], vector: (i: number) => Float32Array | null | undefined, threshold: number): ConsolidateSuggestion[] {
  const all = records.map(stated);
  const byWord = new Map<string, number[]>();
  all.forEach((s, i) => {
    for (const word of s.values.words) {
      const list = byWord.get(word);
      if (list) list.push(i);
      else byWord.set(word, [i]);
    }
  });
  const seen = new Set<string>();
  const found: ConsolidateSuggestion[] = [];
  for (const list of byWord.values()) {
    if (list.length < 2 || list.length > COMMON_WORD) continue;
    for (let x = 0; x < list.length; x++) {
      for (let y = x + 1; y < list.length; y++) {
        const [i, j] = [list[x]!, list[y]!];
        const pair = `${i} ${j}`;
        if (seen.has(pair)) continue;
        seen.add(pair);
        const [older, newer] = isNewer(all[i]!.record, all[j]!.record) ? [j, i] : [i, j];
        const a = vector(newer);
        const b = vector(older);
        const cosine = a && b && a.length === b.length ? dot(a, b) : undefined;
        const update = suggestion(all[newer]!, all[older]!, cosine === undefined ? undefined : { cosine, threshold });
        if (update) found.push({ ...update, by: all[newer]!.record.id });
      }
    }
  }
  return found.sort((p, q) => (p.by < q.by ? -1 : p.by > q.by ? 1 : p.id < q.id ? -1 : p.id > q.id ? 1 : 0));
}

function isNewer(a: MemoryRecord, b: MemoryRecord): boolean {
  return a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id);
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let k = 0; k < a.length; k++) sum += a[k]! * b[k]!;
  return sum;
}
