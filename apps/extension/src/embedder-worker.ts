/** The embedder's Web Worker: transformers.js and onnxruntime-web, all from the extension's own files. */
import '@zeromem/embed-transformers/worker';
