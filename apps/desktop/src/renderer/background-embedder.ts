/**
 * The web twin's embedder, loaded after the memory opens: the views show at once and the
 * model (6.6 MB, most of the first visit's bytes) arrives in the background. Until it is
 * ready a query is answered by its words (the query gets no vector) and a written memory
 * waits in core's embed queue for its vector; the header shows the state. The model's id
 * and dimension are known before it loads (the bundled model's), so core stores and finds
 * its vectors from the start; a loaded model that does not match them is not used.
 */
import type { Embedder, EmbedKind } from '@zeromem/core';
import type { WorkerEmbedder } from '@zeromem/embed-transformers/browser';

/** What the header shows: loading, ready, or why word search is all there is. */
export type SemanticState = { status: 'loading' } | { status: 'ready' } | { status: 'failed'; problem: string };

export interface BackgroundEmbedder extends Embedder {
  readonly fusionWeight: number;
  state(): SemanticState;
  /** Calls `listener` on every change of state; returns the unsubscribe function. */
  onState(listener: (state: SemanticState) => void): () => void;
  /** Settles once the model is ready or has failed. */
  readonly settled: Promise<void>;
}

export interface ModelIdentity {
  modelId: string;
  dimension: number;
  fusionWeight: number;
}

/** Starts `load()` now and returns an embedder that is usable (by words) before it finishes. */
export function backgroundEmbedder(identity: ModelIdentity, load: () => Promise<WorkerEmbedder>): BackgroundEmbedder {
  let state: SemanticState = { status: 'loading' };
  const listeners = new Set<(state: SemanticState) => void>();
  const set = (next: SemanticState) => {
    state = next;
    for (const listener of listeners) listener(next);
  };
  const model = load().then(
    (loaded) => {
      if (loaded.modelId !== identity.modelId || loaded.dimension !== identity.dimension) {
        set({ status: 'failed', problem: `The model loaded is ${loaded.modelId} (${loaded.dimension}-d), not ${identity.modelId} (${identity.dimension}-d).` });
        void loaded.dispose();
        return null;
      }
      set({ status: 'ready' });
      return loaded;
    },
    (err: unknown) => {
      set({ status: 'failed', problem: err instanceof Error ? err.message : String(err) });
      return null;
    },
  );
  return {
    ...identity,
    state: () => state,
    onState(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    settled: model.then(() => undefined),
    async embed(texts: readonly string[], kind: EmbedKind) {
      // A query does not wait for the model: recall answers by words meanwhile. A memory's
      // vector is computed once the model is there (core's embed queue waits here).
      if (kind === 'query' && state.status !== 'ready') return texts.map(() => null);
      const loaded = await model;
      return loaded ? loaded.embed(texts, kind) : texts.map(() => null);
    },
  };
}
