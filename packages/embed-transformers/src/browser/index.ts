/**
 * @zeromem/embed-transformers/browser: the page side of the Web Worker embedder. Import
 * this (never the package's Node entry) from browser code; the worker script is
 * `@zeromem/embed-transformers/worker`.
 *
 * @packageDocumentation
 */
export { createWorkerEmbedder, type WorkerEmbedder, type WorkerEmbedderOptions } from './worker-embedder.ts';
export type { WasmPaths } from './protocol.ts';
export { DEFAULT_MODEL, DEFAULT_MODEL_DIMENSION, defaultSettings, modelIdFor, type ModelSettings, type ModelSettingsOptions, type Pooling } from '../model-settings.ts';
export type { Embedder, EmbedKind } from '@zeromem/core';
