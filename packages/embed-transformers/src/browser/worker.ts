/**
 * The embedder worker script: start it as a module worker and hand it to
 * `createWorkerEmbedder({ worker })`.
 *
 * @example browser
 * // embedder-worker.ts in your app (so that your bundler builds it as a worker):
 * import '@zeromem/embed-transformers/worker';
 * // page:
 * const worker = new Worker(new URL('./embedder-worker.ts', import.meta.url), { type: 'module' });
 */
import { serveEmbedder, type WorkerScope } from './worker-host.ts';

serveEmbedder(self as unknown as WorkerScope);
