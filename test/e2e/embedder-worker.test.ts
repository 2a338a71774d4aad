/**
 * The Web Worker embedder in real Chromium: transformers.js on onnxruntime-web (WASM) in
 * a module worker, the model and the wasm files self-hosted by the harness server. Every
 * request of the browser (pages and the worker) is recorded, and all of them go to the
 * harness origin: nothing from a CDN or the model hub. A Memory in the page then recalls
 * a record through its vector.
 */
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '@zeromem/core';
import { createTransformersEmbedder, type TransformersEmbedder } from '@zeromem/embed-transformers';
import { skipBrowserTests, startHarness, uniqueName, type Harness } from './browser.ts';
import { EMBEDDER_ASSET_URLS } from './embedder-assets.ts';

const TEXTS = [
  'The customer prefers phone calls after six',
  'My automobile broke down on the highway',
  '我喜欢在周末去公园散步', // Chinese only: no vector
  '🎉🚀😀', // emoji only: no vector
  'She is a doctor at the hospital',
];

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

describe.skipIf(skipBrowserTests(import.meta.url))('worker embedder in real Chromium (self-hosted model and wasm)', () => {
  let harness: Harness;
  let page: Page;
  let origin: string;
  let node: TransformersEmbedder;
  /** Every request the browser made, from any page or worker of the context. */
  const requests: string[] = [];
  /** The requests the page itself reported (page.on('request')). */
  const pageRequests: string[] = [];
  const failed: string[] = [];

  beforeAll(async () => {
    harness = await startHarness();
    origin = new URL(harness.url).origin;
    // On the context, before the first page: it sees the pages' and their workers' requests.
    harness.context.on('request', (request: Request) => requests.push(request.url()));
    harness.context.on('requestfailed', (request: Request) => failed.push(`${request.url()}: ${request.failure()?.errorText}`));
    harness.context.on('page', (opened) => opened.on('request', (request) => pageRequests.push(request.url())));
    page = await harness.newPage('embedder.html');
    await page.waitForFunction(() => window.zeromemEmbed !== undefined);
    node = await createTransformersEmbedder();
  });

  afterAll(async () => {
    await page?.evaluate(async () => {
      const embedder = window.zeromem.scratch.embedder as { dispose(): Promise<void> } | undefined;
      await embedder?.dispose();
    });
    await node?.dispose();
    await harness?.close();
  });

  it('embeds in the worker: 128-d unit vectors, null for Chinese-only and emoji-only text, the same vectors as in Node', async () => {
    const result = await page.evaluate(async (texts) => {
      const embedder = await window.zeromemEmbed.create();
      window.zeromem.scratch.embedder = embedder;
      const vectors = await embedder.embed(texts, 'document');
      return {
        modelId: embedder.modelId,
        dimension: embedder.dimension,
        fusionWeight: embedder.fusionWeight,
        vectors: vectors.map((v) => (v ? { length: v.length, ownBuffer: v.buffer.byteLength === v.byteLength, values: Array.from(v) } : null)),
        empty: await embedder.embed([], 'query'),
      };
    }, TEXTS);

    expect(result.modelId).toBe(node.modelId);
    expect(result.dimension).toBe(128);
    expect(result.fusionWeight).toBe(0.5);
    expect(result.empty).toEqual([]);
    expect(result.vectors.map((v) => v === null)).toEqual([false, false, true, true, false]);
    const inNode = await node.embed(TEXTS, 'document');
    result.vectors.forEach((vector, i) => {
      if (!vector) return;
      expect(vector.length).toBe(128);
      expect(vector.ownBuffer).toBe(true); // not a view on the transferred block
      expect(Math.sqrt(cosine(vector.values, vector.values))).toBeCloseTo(1, 5);
      // onnxruntime-web in the worker and onnxruntime-node compute the same vector.
      expect(cosine(vector.values, inNode[i]!)).toBeGreaterThan(0.9999);
    });
  });

  it('fetched the model and the wasm from the harness origin, and nothing from anywhere else', () => {
    const models = `${origin}${EMBEDDER_ASSET_URLS.models}zeromem-static-en/`;
    const wasm = `${origin}${EMBEDDER_ASSET_URLS.wasm}`;
    // The worker's own requests are in the record (so an outside request could not hide).
    expect(requests).toContain(`${models}onnx/model.onnx`);
    expect(requests).toContain(`${models}tokenizer.json`);
    expect(requests).toContain(`${wasm}ort-wasm-simd-threaded.jsep.wasm`);
    expect(requests.some((url) => url.includes('embedder-worker.ts'))).toBe(true);
    expect(pageRequests).toContain(`${origin}/embedder.html`);
    expect(pageRequests.every((url) => requests.includes(url))).toBe(true);

    const elsewhere = requests.filter((url) => new URL(url).origin !== origin);
    expect(elsewhere).toEqual([]);
    expect(failed).toEqual([]);
  });

  it('lets a Memory in the page recall a record through its vector (BM25 alone finds nothing)', async () => {
    const result = await page.evaluate(async (name) => {
      const { openMemory } = window.zeromem;
      const embedder = window.zeromem.scratch.embedder as Embedder;
      const memory = await openMemory({ name, embedder });
      const ns = { userId: 'u1', agentId: 'support' };
      try {
        for (const content of [
          'My automobile broke down on the highway',
          'I adopted a puppy from the animal shelter',
          'The stock market fell sharply today',
          'We went fishing at the lake last summer',
          '客户喜欢在晚上六点以后打电话',
        ]) {
          await memory.remember({ namespace: ns, content });
        }
        await memory.whenEmbedded();
        const recalled = await memory.recall(ns, 'my car stopped working', { k: 3 });
        const chinese = await memory.recall(ns, '打电话');
        return {
          vector: recalled.vector,
          hits: recalled.hits.map((hit) => ({ content: hit.record.content, bm25: hit.explain.bm25, cosine: hit.explain.cosine })),
          chineseVector: chinese.vector,
          chineseTop: chinese.hits[0]?.record.content ?? null,
        };
      } finally {
        await memory.close();
      }
    }, uniqueName('embedder-recall'));

    expect(result.vector).toBe('used');
    const top = result.hits[0]!;
    expect(top.content).toBe('My automobile broke down on the highway');
    expect(top.bm25).toBeNull();
    expect(top.cosine).not.toBeNull();
    expect(top.cosine!).toBeGreaterThan(0.5);
    // Chinese: no vector for the query, found by its words.
    expect(result.chineseVector).toBe('query-not-embeddable');
    expect(result.chineseTop).toBe('客户喜欢在晚上六点以后打电话');
  });

  it('reports a missing model or a broken worker as EMBEDDER_UNAVAILABLE with what to do', async () => {
    const errors = await page.evaluate(async () => {
      const caught = async (make: () => Promise<unknown>) => {
        try {
          await make();
          return null;
        } catch (err) {
          return { isZeromemError: window.zeromem.isZeromemError(err), code: (err as { code?: string }).code, message: (err as Error).message };
        }
      };
      const { createWorkerEmbedder, assets, create } = window.zeromemEmbed;
      return {
        missingModel: await caught(() => create({ model: 'no-such-model' })),
        missingWorker: await caught(() => createWorkerEmbedder({ workerUrl: '/no-such-worker.js', ...assets, timeoutMs: 10_000 })),
        badOptions: await caught(() => createWorkerEmbedder({ ...assets })),
        badSetting: await caught(() => createWorkerEmbedder({ workerUrl: '/never-started.js', ...assets, pooling: 'max' as 'mean' })),
      };
    });
    expect(errors.missingModel).toMatchObject({ isZeromemError: true, code: 'EMBEDDER_UNAVAILABLE' });
    expect(errors.missingModel!.message).toContain('no-such-model');
    expect(errors.missingModel!.message).toContain(`${origin}${EMBEDDER_ASSET_URLS.models}`);
    expect(errors.missingWorker).toMatchObject({ isZeromemError: true, code: 'EMBEDDER_UNAVAILABLE' });
    expect(errors.badOptions).toMatchObject({ isZeromemError: true, code: 'INVALID_INPUT' });
    expect(errors.badSetting).toMatchObject({ isZeromemError: true, code: 'INVALID_INPUT' });
    expect(requests.some((url) => url.includes('never-started'))).toBe(false); // rejected before any worker started
    // Still nothing left the harness origin.
    expect(requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
  });
});
