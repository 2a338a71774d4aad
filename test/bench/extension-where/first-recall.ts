/**
 * What every placement of the benchmark runs: open the memory, recall, build a context
 * (the side panel's reply path), timed; and seeding the store once.
 */
import { openMemory, type Embedder } from '@zeromem/core';

export const NAMESPACE = { userId: 'me' } as const;
export const DATABASE = 'zeromem-bench';
export const QUERY = 'which seat do I prefer on long flights?';

/** Timings of one first recall (ms). */
export interface FirstRecall {
  openMs: number;
  recallMs: number;
  contextMs: number;
  hits: number;
  /** `performance.memory.usedJSHeapSize` after it (documents only), or null. */
  heapBytes: number | null;
}

function heap(): number | null {
  return (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? null;
}

/** Opens, recalls, builds a context, closes. */
export async function firstRecall(embedder?: Embedder): Promise<FirstRecall> {
  const t0 = performance.now();
  const memory = await openMemory({ name: DATABASE, ...(embedder ? { embedder } : {}) });
  const t1 = performance.now();
  try {
    const { hits } = await memory.recall(NAMESPACE, QUERY);
    const t2 = performance.now();
    await memory.buildContext({ namespace: NAMESPACE, query: QUERY, budget: 400 });
    const t3 = performance.now();
    return { openMs: t1 - t0, recallMs: t2 - t1, contextMs: t3 - t2, hits: hits.length, heapBytes: heap() };
  } finally {
    await memory.close();
  }
}

const TOPICS = ['flights', 'hotels', 'food', 'work', 'family', 'health', 'music', 'books', 'cars', 'garden'];

/** Stores `count` varied memories (once per profile). */
export async function seed(count: number, embedder?: Embedder): Promise<number> {
  const memory = await openMemory({ name: DATABASE, ...(embedder ? { embedder } : {}) });
  try {
    const inputs = Array.from({ length: count }, (_, i) => ({
      namespace: NAMESPACE,
      content: `Note ${i} about ${TOPICS[i % TOPICS.length]}: ${i % 7 === 0 ? 'I prefer window seats on long flights' : `item ${i * 37 % 101} matters on day ${i % 28}`} (${i})`,
    }));
    await memory.rememberMany(inputs);
    await memory.whenEmbedded();
    return await memory.count(NAMESPACE);
  } finally {
    await memory.close();
  }
}
