import type { Tokenizer } from '../public/tokenizer.ts';

/** Characters of counted text kept per tokenizer: bounded so a long-running agent does not grow it forever. */
const MAX_CHARS = 16_000_000;

interface Cache {
  counts: Map<string, number>;
  chars: number;
}
const caches = new WeakMap<Tokenizer, Cache>();

/**
 * Tokens of a text, remembered per tokenizer: the same memory lines are counted again on
 * every context build and for every full-history count. Oldest entries go first.
 */
export function cachedCount(tokenizer: Tokenizer, text: string): number {
  let cache = caches.get(tokenizer);
  if (!cache) caches.set(tokenizer, (cache = { counts: new Map(), chars: 0 }));
  const hit = cache.counts.get(text);
  if (hit !== undefined) return hit;
  const count = tokenizer.count(text);
  if (text.length > MAX_CHARS / 16) return count;
  cache.counts.set(text, count);
  cache.chars += text.length;
  for (const key of cache.counts.keys()) {
    if (cache.chars <= MAX_CHARS) break;
    cache.counts.delete(key);
    cache.chars -= key.length;
  }
  return count;
}

/**
 * Empties the tokenizer's cache: its keys are the counted text (memory lines), which must
 * not outlive a forget. Everything still in use is counted again on the next build.
 */
export function clearCountCache(tokenizer: Tokenizer): void {
  caches.delete(tokenizer);
}
