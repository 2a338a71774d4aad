/**
 * The web twin's background embedder: a query before the model is ready gets no vector (recall
 * answers by words), a document waits for the model, and a model that is not the one
 * announced is not used.
 */
import { describe, expect, it } from 'vitest';
import type { WorkerEmbedder } from '@zeromem/embed-transformers/browser';
import { backgroundEmbedder } from '../../src/renderer/background-embedder.ts';

const identity = { modelId: 'm1', dimension: 2, fusionWeight: 0.5 };

function fakeModel(modelId = 'm1', dimension = 2): WorkerEmbedder {
  return { modelId, dimension, fusionWeight: 0.5, model: modelId, embed: async (texts) => texts.map(() => new Float32Array(dimension).fill(1)), dispose: async () => undefined };
}

describe('backgroundEmbedder', () => {
  it('answers queries without a vector while loading, then with one; documents wait for the model', async () => {
    let finish!: (model: WorkerEmbedder) => void;
    const embedder = backgroundEmbedder(identity, () => new Promise((resolve) => (finish = resolve)));
    const states: string[] = [];
    embedder.onState((s) => states.push(s.status));
    expect(embedder.state()).toEqual({ status: 'loading' });
    expect(await embedder.embed(['a'], 'query')).toEqual([null]);
    const document = embedder.embed(['b'], 'document');
    finish(fakeModel());
    expect(await document).toEqual([new Float32Array([1, 1])]);
    expect(await embedder.embed(['a'], 'query')).toEqual([new Float32Array([1, 1])]);
    expect(states).toEqual(['ready']);
  });

  it('does not use a model other than the one announced, and says why', async () => {
    const embedder = backgroundEmbedder(identity, async () => fakeModel('m2', 3));
    await embedder.settled;
    expect(embedder.state()).toMatchObject({ status: 'failed', problem: expect.stringContaining('m2') });
    expect(await embedder.embed(['b'], 'document')).toEqual([null]);
  });

  it('a model that cannot load leaves word search, with the reason', async () => {
    const embedder = backgroundEmbedder(identity, async () => Promise.reject(new Error('no wasm')));
    await embedder.settled;
    expect(embedder.state()).toEqual({ status: 'failed', problem: 'no wasm' });
    expect(await embedder.embed(['a'], 'query')).toEqual([null]);
  });
});
