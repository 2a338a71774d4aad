import type { Embedder } from '@zeromem/core';
import { describeEmbedderChoice, parseEmbedderChoice, type EmbedderChoice } from '@zeromem/embed-transformers';

/** What `@zeromem/embed-transformers` is expected to export. */
interface TransformersModule {
  createEmbedderFromChoice(choice: EmbedderSpec): Promise<Embedder | undefined>;
}

/** Its model code is imported only when an embedder is asked for (`--embedder none` never loads the ONNX runtime); tests pass their own module. */
const TRANSFORMERS_PACKAGE = '@zeromem/embed-transformers';

/** An embedder that could not be set up; the message says what to do instead. */
export class EmbedderUnavailableError extends Error {
  override readonly name = 'EmbedderUnavailableError';
}

/** How `--embedder` was understood (the parser every door shares, from `@zeromem/embed-transformers`). */
export type EmbedderSpec = EmbedderChoice;
export { describeEmbedderChoice as describeEmbedderSpec, parseEmbedderChoice as parseEmbedderSpec };

/**
 * The embedder for a spec: `undefined` for `none` (recall is BM25 only); otherwise from
 * `createEmbedderFromChoice` of `@zeromem/embed-transformers`, whose module is loaded
 * only now (tests pass their own), so a model that cannot load only matters when an
 * embedder is asked for.
 * @throws EmbedderUnavailableError with a message suggesting `--embedder none`
 */
export async function chooseEmbedder(spec: EmbedderSpec, load: () => Promise<unknown> = () => import(TRANSFORMERS_PACKAGE)): Promise<Embedder | undefined> {
  if (spec.kind === 'none') return undefined;
  let module: TransformersModule;
  try {
    module = (await load()) as TransformersModule;
  } catch (err) {
    throw new EmbedderUnavailableError(
      `cannot load ${TRANSFORMERS_PACKAGE} for --embedder ${spec.kind === 'bundled' ? 'bundled' : describeEmbedderChoice(spec)}: ${(err as Error).message}\n` +
        'Run `pnpm install`, or evaluate BM25 only with --embedder none.',
      { cause: err },
    );
  }
  if (typeof module?.createEmbedderFromChoice !== 'function') {
    throw new EmbedderUnavailableError(
      `${TRANSFORMERS_PACKAGE} does not export createEmbedderFromChoice(); evaluate BM25 only with --embedder none.`,
    );
  }
  try {
    return await module.createEmbedderFromChoice(spec);
  } catch (err) {
    throw new EmbedderUnavailableError(
      `the embedder (${describeEmbedderChoice(spec)}) could not be created: ${(err as Error).message}\nEvaluate BM25 only with --embedder none.`,
      { cause: err },
    );
  }
}
