/**
 * mulberry32: a small deterministic PRNG, for reproducible benchmark inputs. Browser-safe
 * (no Node imports): test/e2e/harness/bench.ts loads it in the page too.
 */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
