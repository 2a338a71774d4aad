/**
 * @zeromem/embed-transformers (Node entry): an {@link Embedder} on transformers.js with
 * onnxruntime-node, offline model loading, and the bundled default model
 * `zeromem-static-en`. Browser code imports `@zeromem/embed-transformers/browser`
 * (a Web Worker embedder) instead: this entry uses `node:` modules.
 *
 * @packageDocumentation
 */
export { createTransformersEmbedder, type TransformersEmbedderOptions } from './node/create-transformers-embedder.ts';
export { bundledModelsDir, onnxWasmDir, onnxWasmFiles, ONNX_WASM_FILES } from './node/assets.ts';
export { CHINESE_MODEL, DEFAULT_MODEL, MINILM_MODEL, defaultSettings, type ModelSettings, type ModelSettingsOptions, type Pooling } from './model-settings.ts';
export type { TransformersEmbedder } from './pipeline-embedder.ts';
export { UnknownTokenGuard } from './unknown-tokens.ts';
export type { Embedder, EmbedKind } from '@zeromem/core';
export { createBundledEmbedder, type BundledEmbedderOptions } from './node/create-bundled-embedder.ts';
export { hasHan, routeByScript, type LazyEmbedder, type ScriptRoutedEmbedder } from './script-router.ts';
export { createEmbedderFromChoice, describeEmbedderChoice, parseEmbedderChoice, type EmbedderChoice } from './node/embedder-choice.ts';
