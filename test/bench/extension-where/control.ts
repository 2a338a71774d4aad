/**
 * The driver's page (no SDK): triggers a first recall in the service worker or in an
 * offscreen document and times it from the trigger.
 */
const bench = {
  /** Wakes the (stopped) service worker with a message; resolves with its timings and the round trip. */
  async serviceWorker() {
    const t0 = performance.now();
    const result = await chrome.runtime.sendMessage<Record<string, number>>({ type: 'sw-recall' });
    return { ...result, totalMs: performance.now() - t0 };
  },
  /** Creates the offscreen document, asks it for a first recall, closes it. */
  async offscreen(embedder: boolean) {
    const channel = new BroadcastChannel('zeromem-bench');
    const t0 = performance.now();
    const ready = new Promise<void>((resolve) => {
      channel.addEventListener('message', (event: MessageEvent<{ type: string }>) => event.data.type === 'ready' && resolve());
    });
    await chrome.offscreen.createDocument({ url: 'offscreen.html', reasons: ['WORKERS'], justification: 'zeromem benchmark' });
    await ready;
    const result = await new Promise<Record<string, number>>((resolve) => {
      channel.addEventListener('message', (event: MessageEvent<{ type: string; result: Record<string, number> }>) => event.data.type === 'result' && resolve(event.data.result));
      channel.postMessage({ type: 'offscreen-recall', embedder });
    });
    const totalMs = performance.now() - t0;
    await chrome.offscreen.closeDocument();
    channel.close();
    return { ...result, totalMs };
  },
};
(window as unknown as { bench: typeof bench }).bench = bench;
