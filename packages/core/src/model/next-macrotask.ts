/** Resolves on the next macrotask (`setImmediate` where there is one, else `setTimeout(0)`): timers and I/O get a turn first. */
export function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)));
}

/** How long long-running work may hold the event loop before it gives other work a turn. */
const SLICE_MS = 10;

/**
 * For long loops (an import's parse): `await turn()` as often as convenient; it yields a
 * macrotask only once {@link SLICE_MS} have passed since the last one, so a request or a
 * timer waits at most about that long, and a loop of cheap steps is not slowed by yielding
 * on each (a browser's `setTimeout(0)` waits ≥ 4 ms).
 */
export function turnTaker(): () => Promise<void> | undefined {
  let since = Date.now();
  return () => {
    if (Date.now() - since < SLICE_MS) return undefined;
    return nextMacrotask().then(() => {
      since = Date.now();
    });
  };
}
