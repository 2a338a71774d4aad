// A user's plain Node script: the bundled model, remember, recall, a context.
import { openMemory } from '@zeromem/core';
import { createTransformersEmbedder } from '@zeromem/embed-transformers';

const embedder = await createTransformersEmbedder(); // the bundled model, offline
const memory = await openMemory({ name: 'package-test', embedder });
const user = { userId: 'user-1042' };
await memory.remember({ namespace: user, content: 'My automobile broke down on the highway' });
await memory.remember({ namespace: user, content: 'I adopted a puppy from the animal shelter' });
await memory.whenEmbedded();

const { hits, vector } = await memory.recall(user, 'my car stopped working'); // no word in common
const { text, report } = await memory.buildContext({ namespace: user, query: 'my car stopped working', budget: 200 });
console.log(JSON.stringify({ vector, top: hits[0]?.record.content, cosine: hits[0]?.explain.cosine, tokens: report.tokens, text }));
await memory.close();
await embedder.dispose();
