import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Embedder } from '@zeromem/core';
import { invalidOption } from '../errors.ts';
import { MINILM_MODEL } from '../model-settings.ts';
import { createBundledEmbedder } from './create-bundled-embedder.ts';
import { createTransformersEmbedder } from './create-transformers-embedder.ts';

/**
 * What an `--embedder <value>` option of a zeromem door (the CLI, `zeromem serve`,
 * `zeromem-mcp`) asks for: `bundled` (the bundled models routed by script: Chinese text to
 * bge-small-zh-v1.5, other text to the static English model zeromem-static-en), `minilm`
 * (the same with the sentence model all-MiniLM-L6-v2 for English: better on short English texts,
 * far slower; opt-in, see MODEL.md), `none` (BM25 only), a local model folder, or a model id (a folder name under this
 * package's `models/`, such as `zeromem-static-en`, or a hub id already in the
 * transformers.js cache).
 */
export type EmbedderChoice = { kind: 'none' } | { kind: 'bundled' } | { kind: 'minilm' } | { kind: 'path'; path: string } | { kind: 'model'; model: string };

/**
 * Reads an `--embedder` value: `bundled`, `minilm`, `none`, an existing file or folder or
 * anything starting with `.` or `/` (a local model), else a model id.
 * @throws ZeromemError INVALID_INPUT for an empty value
 */
export function parseEmbedderChoice(value: string): EmbedderChoice {
  if (typeof value !== 'string' || !value.trim()) throw invalidOption('embedder', 'must be bundled, minilm, none, a model folder or a model id');
  if (value === 'none') return { kind: 'none' };
  if (value === 'bundled') return { kind: 'bundled' };
  if (value === 'minilm') return { kind: 'minilm' };
  if (existsSync(value) || value.startsWith('.') || value.startsWith('/')) return { kind: 'path', path: resolve(value) };
  return { kind: 'model', model: value };
}

/** A short name of a choice for messages and reports. */
export function describeEmbedderChoice(choice: EmbedderChoice): string {
  switch (choice.kind) {
    case 'none':
      return 'none (BM25 only)';
    case 'bundled':
      return 'bundled';
    case 'minilm':
      return 'minilm (bundled, English by all-MiniLM-L6-v2)';
    case 'path':
      return `model at ${choice.path}`;
    case 'model':
      return `model ${choice.model}`;
  }
}

/**
 * The embedder for a choice, offline: `undefined` for `none`; {@link createBundledEmbedder}
 * for `bundled`, with `englishModel: 'all-MiniLM-L6-v2'` for `minilm`; else {@link createTransformersEmbedder} on the folder or id.
 * @throws ZeromemError EMBEDDER_UNAVAILABLE when the model cannot be loaded
 */
export async function createEmbedderFromChoice(choice: EmbedderChoice): Promise<(Embedder & { dispose(): Promise<void> }) | undefined> {
  switch (choice.kind) {
    case 'none':
      return undefined;
    case 'bundled':
      return createBundledEmbedder();
    case 'minilm':
      return createBundledEmbedder({ englishModel: MINILM_MODEL });
    case 'path':
      return createTransformersEmbedder({ modelPath: choice.path });
    case 'model':
      return createTransformersEmbedder({ model: choice.model });
  }
}
