import type { Embedder } from '@zeromem/core';

/**
 * The service's embedder from `--embedder` (read by `parseEmbedderChoice` of
 * `@zeromem/embed-transformers`, the parser every door shares): `bundled` (the default:
 * the offline English static model and, for text with Chinese characters, the bundled
 * Chinese model; recall is hybrid), `none` (BM25 only), or a local model folder or a
 * model id. Nothing is ever downloaded.
 * @throws ZeromemError EMBEDDER_UNAVAILABLE when the model cannot be loaded; INVALID_INPUT for an empty choice
 */
export async function loadEmbedder(choice: string): Promise<Embedder | undefined> {
  if (choice === 'none') return undefined;
  // Loaded on demand: `--embedder none` starts without the ONNX runtime.
  const { createEmbedderFromChoice, parseEmbedderChoice } = await import('@zeromem/embed-transformers');
  return createEmbedderFromChoice(parseEmbedderChoice(choice));
}
