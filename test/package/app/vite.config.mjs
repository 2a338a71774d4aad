export default {
  // The worker loads transformers.js with a dynamic import: an ES-module worker can code-split.
  worker: { format: 'es' },
  build: { target: 'es2022' },
};
