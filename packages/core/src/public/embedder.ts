// The embedder a memory turns texts into vectors with (your own, or @zeromem/embed-transformers).

/** What a text is embedded as: some models (E5, BGE) embed queries and passages differently. */
export type EmbedKind = 'query' | 'document';

/**
 * Turns texts into unit vectors, on the device. Implementations live outside core
 * (`@zeromem/embed-transformers`); core only calls this.
 */
export interface Embedder {
  /** Identifies the model and its settings: vectors are stored per model id. */
  readonly modelId: string;
  /** Length of every vector. */
  readonly dimension: number;
  /**
   * How much recall should trust this model against BM25, 0..1: the default of
   * `weights.vector` (and `weights.text` = 1 - it). A weak static model says 0.3, a
   * sentence transformer 0.5 or more. Default 0.5.
   */
  readonly fusionWeight?: number;
  /**
   * One result per text, in order: a unit vector, or `null` when the model has nothing
   * to say about the text (e.g. every token unknown); such a memory is found lexically only.
   */
  embed(texts: readonly string[], kind: EmbedKind): Promise<Array<Float32Array | null>>;
}
