import type { EmbedKind } from '@zeromem/core';
import type { ModelSettingsOptions } from '../model-settings.ts';

/** onnxruntime-web's `env.wasm.wasmPaths`: a URL prefix (ending in `/`), or the URL of each file. */
export type WasmPaths = string | { wasm?: string; mjs?: string };

/** What the page tells the worker to load. URLs are absolute (the page resolves them). */
export interface WorkerInitOptions extends ModelSettingsOptions {
  /** A model name under `modelBaseUrl`, or a hub id (with `allowRemoteModels`). */
  model: string;
  /** URL of the folder that holds model folders (transformers.js `env.localModelPath`). */
  modelBaseUrl: string;
  /** Where onnxruntime-web's wasm files are served. */
  wasmPaths: WasmPaths;
  allowRemoteModels: boolean;
  /** onnxruntime-web threads; more than 1 needs a cross-origin isolated page. */
  numThreads: number;
  /** Keep model files in the Cache Storage API (`transformers-cache`). */
  browserCache: boolean;
}

/** Page -> worker. Every request has an id; the answer carries the same id. */
export type PageMessage =
  | { type: 'init'; id: number; options: WorkerInitOptions }
  | { type: 'embed'; id: number; texts: string[]; kind: EmbedKind }
  | { type: 'dispose'; id: number };

/** Worker -> page. */
export type WorkerMessage =
  | { type: 'ready'; id: number; modelId: string; model: string; dimension: number; fusionWeight: number }
  /** Row i of `data` (length `dimension`) is text i's vector when `present[i]` is 1; transferred, not copied. */
  | { type: 'vectors'; id: number; dimension: number; data: Float32Array; present: Uint8Array }
  | { type: 'disposed'; id: number }
  | { type: 'error'; id: number; code: string; message: string };
