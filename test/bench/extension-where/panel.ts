/**
 * The SDK in a side panel (an extension page): on load with `?run`, a first recall, with the
 * embedder when `?embedder`; `window.benchResult` holds the timings and the time since
 * navigation started. `?seed=N` stores N memories instead.
 */
import { firstRecall, seed } from './first-recall.ts';
import { openEmbedder } from './embedder.ts';

const params = new URLSearchParams(location.search);
const w = window as unknown as { benchResult?: unknown };

async function main(): Promise<void> {
  const embedder = params.has('embedder') ? await openEmbedder() : undefined;
  if (params.has('seed')) {
    w.benchResult = { stored: await seed(Number(params.get('seed')), embedder) };
  } else {
    const result = await firstRecall(embedder);
    w.benchResult = { ...result, sinceNavigationMs: performance.now() };
  }
  await embedder?.dispose();
}
main().catch((err: unknown) => (w.benchResult = { error: String(err) }));
