import '@zeromem/embed-transformers/worker';
