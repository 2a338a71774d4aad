/**
 * The service-worker script of the MV3 test extension: core, sync and the browser embedder
 * bundled together, exercised from the test through `self.zeromemCheck`.
 */
import { openMemory } from '@zeromem/core';
import * as sync from '@zeromem/sync';
import * as browserEmbedder from '@zeromem/embed-transformers/browser';

interface CheckResult {
  /** Milliseconds from the worker's start to the end of this script's evaluation (bundle parse included). */
  startupMs: number;
  syncExports: string[];
  embedderExports: string[];
  openMs: number;
  firstRecallMs: number;
  firstContextMs: number;
  recalled: string[];
  contextText: string;
  tokenizer: string;
  stored: number;
}

/** Opens memory in the worker's IndexedDB, remembers `facts`, recalls and builds a context. */
async function check(name: string, facts: string[], query: string): Promise<CheckResult> {
  const t0 = performance.now();
  const memory = await openMemory({ name });
  const t1 = performance.now();
  try {
    const namespace = { userId: 'extension-user' };
    for (const content of facts) await memory.remember({ namespace, content });
    const t2 = performance.now();
    const { hits } = await memory.recall(namespace, query);
    const t3 = performance.now();
    const built = await memory.buildContext({ namespace, query, budget: 200 });
    const t4 = performance.now();
    return {
      startupMs: evaluatedAt,
      syncExports: Object.keys(sync).sort(),
      embedderExports: Object.keys(browserEmbedder).sort(),
      openMs: t1 - t0,
      firstRecallMs: t3 - t2,
      firstContextMs: t4 - t3,
      recalled: hits.map((hit) => hit.record.content),
      contextText: built.text,
      tokenizer: (await memory.tokenizer()).id,
      stored: (await memory.list(namespace, { limit: 100 })).items.length,
    };
  } finally {
    await memory.close();
  }
}

const evaluatedAt = performance.now();
(self as unknown as { zeromemCheck: typeof check }).zeromemCheck = check;
