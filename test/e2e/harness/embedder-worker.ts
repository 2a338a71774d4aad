/**
 * The harness's embedder worker: what an app writes so that its bundler builds the worker
 * (`new Worker(new URL('./embedder-worker.ts', import.meta.url), { type: 'module' })`).
 */
import '@zeromem/embed-transformers/worker';
