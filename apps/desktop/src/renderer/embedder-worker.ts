/** The embedder's Web Worker: built by Vite from this file, run on the model files the app serves. */
import '@zeromem/embed-transformers/worker';
