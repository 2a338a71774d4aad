// A browser app: core + sync + the Web Worker embedder, model and wasm files served by the app.
import { openMemory } from '@zeromem/core';
import { shareNamespace } from '@zeromem/sync';
import { createWorkerEmbedder } from '@zeromem/embed-transformers/browser';

async function run() {
  const params = new URLSearchParams(location.search);
  const worker = new Worker(new URL('./embedder-worker.js', import.meta.url), { type: 'module' });
  const embedder = await createWorkerEmbedder({ worker, modelBaseUrl: '/models/', wasmPaths: '/ort/' });
  const memory = await openMemory({ name: 'package-test', embedder });
  const user = { userId: 'user-1042' };
  await memory.remember({ namespace: user, content: 'My automobile broke down on the highway' });
  await memory.remember({ namespace: user, content: 'I adopted a puppy from the animal shelter' });
  await memory.whenEmbedded();
  const { hits, vector } = await memory.recall(user, 'my car stopped working');
  const { report } = await memory.buildContext({ namespace: user, query: 'my car stopped working', budget: 200 });
  const share = await shareNamespace(memory, user, { url: params.get('relay'), token: params.get('token') });
  await share.synced;
  await share.flush();
  await share.close();
  return { vector, top: hits[0]?.record.content, tokens: report.tokens };
}

run().then(
  (result) => (window.result = result),
  (err) => (window.result = { error: String(err?.stack ?? err) }),
);
