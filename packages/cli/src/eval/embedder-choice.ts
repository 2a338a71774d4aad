import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Embedder } from '@zeromem/core';

/** What `@zeromem/embed-transformers` is expected to export. */
interface TransformersModule {
  createTransformersEmbedder(options?: { model?: string; modelPath?: string; allowRemoteModels?: boolean }): Promise<Embedder>;
}

/** The package is named in a variable so that TypeScript and bundlers do not require it: `--embedder none` must work without it. */
const TRANSFORMERS_PACKAGE = '@zeromem/embed-transformers';

/** An embedder that could not be set up; the message says what to do instead. */
export class EmbedderUnavailableError extends Error {
  override readonly name = 'EmbedderUnavailableError';
}

/** How `--embedder` was understood. */
export type EmbedderSpec = { kind: 'none' } | { kind: 'bundled' } | { kind: 'path'; path: string } | { kind: 'model'; model: string };

/** `bundled`, `none`, an existing file or folder (a local model), or else a model id. */
export function parseEmbedderSpec(value: string): EmbedderSpec {
  if (value === 'none') return { kind: 'none' };
  if (value === 'bundled') return { kind: 'bundled' };
  if (existsSync(value) || value.startsWith('.') || value.startsWith('/')) return { kind: 'path', path: resolve(value) };
  return { kind: 'model', model: value };
}

/** A short name for reports. */
export function describeEmbedderSpec(spec: EmbedderSpec): string {
  switch (spec.kind) {
    case 'none':
      return 'none (BM25 only)';
    case 'bundled':
      return 'bundled';
    case 'path':
      return `model at ${spec.path}`;
    case 'model':
      return `model ${spec.model}`;
  }
}

/**
 * The embedder for a spec: `undefined` for `none` (recall is BM25 only); otherwise from
 * `@zeromem/embed-transformers`, imported only now, so a missing or broken package
 * only matters when an embedder is asked for.
 * @throws EmbedderUnavailableError with a message suggesting `--embedder none`
 */
export async function chooseEmbedder(spec: EmbedderSpec, load: () => Promise<unknown> = () => import(TRANSFORMERS_PACKAGE)): Promise<Embedder | undefined> {
  if (spec.kind === 'none') return undefined;
  let module: TransformersModule;
  try {
    module = (await load()) as TransformersModule;
  } catch (err) {
    throw new EmbedderUnavailableError(
      `cannot load ${TRANSFORMERS_PACKAGE} for --embedder ${spec.kind === 'bundled' ? 'bundled' : describeEmbedderSpec(spec)}: ${(err as Error).message}\n` +
        'Run `pnpm install`, or evaluate BM25 only with --embedder none.',
      { cause: err },
    );
  }
  if (typeof module?.createTransformersEmbedder !== 'function') {
    throw new EmbedderUnavailableError(
      `${TRANSFORMERS_PACKAGE} does not export createTransformersEmbedder(); evaluate BM25 only with --embedder none.`,
    );
  }
  const options = spec.kind === 'path' ? { modelPath: spec.path } : spec.kind === 'model' ? { model: spec.model } : undefined;
  try {
    return await module.createTransformersEmbedder(options);
  } catch (err) {
    throw new EmbedderUnavailableError(
      `the embedder (${describeEmbedderSpec(spec)}) could not be created: ${(err as Error).message}\nEvaluate BM25 only with --embedder none.`,
      { cause: err },
    );
  }
}
