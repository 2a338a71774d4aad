/**
 * Page side of test/bench/embed-speed.ts: timings of the Web Worker embedder, taken in
 * the page with performance.now() (so they include the postMessage round trip).
 */
import type { WorkerEmbedder } from '@zeromem/embed-transformers/browser';

/** Nearest-rank percentile. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** One short query at a time: `warmup` untimed, then `count` timed (ms each). */
export async function queryLatency(embedder: WorkerEmbedder, args: { queries: string[]; warmup: number; count: number }): Promise<{ p50: number; p95: number; mean: number; n: number }> {
  const { queries, warmup, count } = args;
  for (let i = 0; i < warmup; i++) await embedder.embed([queries[i % queries.length]!], 'query');
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await embedder.embed([queries[i % queries.length]!], 'query');
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p95: percentile(samples, 95), mean: samples.reduce((a, b) => a + b, 0) / samples.length, n: samples.length };
}

/** Texts per second through `embed(batch, 'document')`, in batches of `batch`. */
export async function bulkThroughput(embedder: WorkerEmbedder, args: { texts: string[]; batch: number }): Promise<{ textsPerSecond: number; totalMs: number; embedded: number }> {
  const { texts, batch } = args;
  await embedder.embed(texts.slice(0, Math.min(batch, texts.length)), 'document'); // warm-up
  let embedded = 0;
  const started = performance.now();
  for (let i = 0; i < texts.length; i += batch) {
    const vectors = await embedder.embed(texts.slice(i, i + batch), 'document');
    embedded += vectors.filter((v) => v !== null).length;
  }
  const totalMs = performance.now() - started;
  return { textsPerSecond: (texts.length / totalMs) * 1000, totalMs, embedded };
}
