/**
 * The SDK in an offscreen document: answers a first recall over a BroadcastChannel (a
 * runtime message would also wake the service worker, which would skew the figure).
 */
import { firstRecall } from './first-recall.ts';
import { openEmbedder } from './embedder.ts';

const channel = new BroadcastChannel('zeromem-bench');
channel.onmessage = (event: MessageEvent<{ type: string; embedder: boolean }>) => {
  if (event.data.type !== 'offscreen-recall') return;
  (async () => {
    const embedder = event.data.embedder ? await openEmbedder() : undefined;
    const result = await firstRecall(embedder);
    await embedder?.dispose();
    return { ...result, sinceDocumentMs: performance.now() };
  })().then((result) => channel.postMessage({ type: 'result', result }), (err: unknown) => channel.postMessage({ type: 'result', result: { error: String(err) } }));
};
channel.postMessage({ type: 'ready' });
