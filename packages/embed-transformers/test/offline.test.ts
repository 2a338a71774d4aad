/**
 * The Node embedder offline: the bundled model loads and embeds with remote loading off
 * while every way out to the network (fetch, http, https, net, tls, dns) is stubbed to
 * throw and count, and the count stays 0 — for the bundled model, a folder, an unknown
 * model and a hub id alike.
 */
import dns from 'node:dns';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isZeromemError, openMemory, type ZeromemError } from '@zeromem/core';
import { DEFAULT_MODEL, bundledModelsDir, createTransformersEmbedder, defaultSettings, onnxWasmFiles, type TransformersEmbedder } from '@zeromem/embed-transformers';
import { existsSync } from 'node:fs';

/** Every attempt to reach the network, by what was called. */
const attempts: string[] = [];

function blockNetwork(): void {
  const block = (what: string) => (..._args: unknown[]): never => {
    attempts.push(what);
    throw new Error(`network access in an offline test: ${what}`);
  };
  vi.stubGlobal('fetch', block('fetch'));
  for (const [name, module] of [
    ['http', http],
    ['https', https],
  ] as const) {
    vi.spyOn(module, 'request').mockImplementation(block(`${name}.request`));
    vi.spyOn(module, 'get').mockImplementation(block(`${name}.get`));
  }
  vi.spyOn(net, 'connect').mockImplementation(block('net.connect'));
  vi.spyOn(net, 'createConnection').mockImplementation(block('net.createConnection'));
  vi.spyOn(tls, 'connect').mockImplementation(block('tls.connect'));
  vi.spyOn(dns, 'lookup').mockImplementation(block('dns.lookup'));
  vi.spyOn(dns.promises, 'lookup').mockImplementation(block('dns.promises.lookup'));
  // Named ESM imports of builtins (`import { request } from 'node:http'`) see the stubs too.
  syncBuiltinESMExports();
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

function norm(v: Float32Array): number {
  return Math.sqrt(cosine(v, v));
}

async function embedOne(embedder: TransformersEmbedder, text: string): Promise<Float32Array> {
  const [vector] = await embedder.embed([text], 'document');
  if (!vector) throw new Error(`no vector for ${JSON.stringify(text)}`);
  return vector;
}

/** The error a promise rejects with (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<ZeromemError> {
  try {
    await promise;
  } catch (err) {
    if (isZeromemError(err)) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('createTransformersEmbedder offline (network stubbed to throw)', () => {
  let embedder: TransformersEmbedder;
  let scratch: string;

  beforeAll(async () => {
    blockNetwork();
    scratch = await mkdtemp(join(tmpdir(), 'zeromem-embed-'));
    embedder = await createTransformersEmbedder({ allowRemoteModels: false });
  });

  afterAll(async () => {
    await embedder?.dispose();
    await rm(scratch, { recursive: true, force: true });
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
    syncBuiltinESMExports();
  });

  it('loads the bundled model: 128-d, its id, fusion weight 0.5, and touched no network', () => {
    expect(embedder.dimension).toBe(128);
    expect(embedder.modelId).toBe(`transformers.js:${DEFAULT_MODEL}`);
    expect(embedder.model).toBe(DEFAULT_MODEL);
    expect(embedder.fusionWeight).toBe(0.5);
    expect(attempts).toEqual([]);
  });

  it('returns one unit vector per text, in order, for batches larger than batchSize', async () => {
    const texts = Array.from({ length: 70 }, (_, i) => `note ${i}: the customer called about order ${i} and a ${i % 2 ? 'late' : 'broken'} delivery`);
    const vectors = await embedder.embed(texts, 'document');
    expect(vectors).toHaveLength(70);
    for (const vector of vectors) {
      expect(vector).toBeInstanceOf(Float32Array);
      expect(vector!.length).toBe(128);
      expect(norm(vector!)).toBeCloseTo(1, 5);
    }
    // Order kept although batches are sorted by length: each equals the text embedded alone.
    for (const i of [0, 9, 10, 69]) {
      const alone = await embedOne(embedder, texts[i]!);
      expect(cosine(alone, vectors[i]!)).toBeCloseTo(1, 5);
    }
    expect(attempts).toEqual([]);
  });

  it('puts similar texts closer than unrelated ones', async () => {
    // Exact order for one anchor: paraphrase > related > unrelated > unrelated.
    const anchor = await embedOne(embedder, 'She is a doctor at the hospital');
    const ranked = ['The physician works in a clinic', 'A nurse cared for the sick patient', 'He repairs cars in a garage', 'We went fishing at the lake'];
    const scores = await Promise.all(ranked.map(async (text) => cosine(anchor, await embedOne(embedder, text))));
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);

    // (anchor, closer, farther) triples.
    const triples: Array<[string, string, string]> = [
      ['My car needs new tires', 'The automobile requires fresh wheels', 'I adopted a puppy from the shelter'],
      ['My car needs new tires', 'The truck had a flat tire', 'Quantum physics is hard to learn'],
      ['I love eating pizza and pasta', 'Italian food is my favorite cuisine', 'The train was delayed by an hour'],
      ['I love eating pizza and pasta', 'We cooked dinner at home', 'Quantum physics is hard to learn'],
      ['The flight to Paris was cancelled', 'Our plane trip to France got called off', 'I planted tomatoes in the garden'],
      ['The flight to Paris was cancelled', 'The airport was crowded', 'Quantum physics is hard to learn'],
    ];
    for (const [a, closer, farther] of triples) {
      const [va, vc, vf] = await embedder.embed([a, closer, farther], 'document');
      expect(cosine(va!, vc!), `${a} ~ ${closer} vs ${farther}`).toBeGreaterThan(cosine(va!, vf!) + 0.1);
    }
    expect(attempts).toEqual([]);
  });

  it('gives null (lexical only) for texts the model cannot read: Chinese, emoji, mostly unknown, empty', async () => {
    const texts = ['我喜欢在周末去公园散步', '🎉🚀😀', '我喜欢 pizza 和 咖啡 还有 音乐', '!!!', '', '   ', 'café au lait', 'The customer prefers phone calls'];
    const vectors = await embedder.embed(texts, 'document');
    expect(vectors.map((v) => v === null)).toEqual([true, true, true, true, true, true, false, false]);
    // The query side too.
    expect(await embedder.embed(['我喜欢猫'], 'query')).toEqual([null]);
    expect(attempts).toEqual([]);
  });

  it('fails with EMBEDDER_UNAVAILABLE for an unknown model name or a hub id that is not local, without touching the network', async () => {
    const unknown = await rejection(createTransformersEmbedder({ model: 'no-such-model' }));
    expect(unknown.code).toBe('EMBEDDER_UNAVAILABLE');
    expect(unknown.message).toContain('no-such-model');
    expect(unknown.message).toMatch(/modelPath/);
    expect(unknown.message).toMatch(/allowRemoteModels: true/);

    const hub = await rejection(createTransformersEmbedder({ model: 'Xenova/all-MiniLM-L6-v2' }));
    expect(hub.code).toBe('EMBEDDER_UNAVAILABLE');
    expect(hub.message).toMatch(/allowRemoteModels: true/);
    expect(attempts).toEqual([]);
  });

  it('loads a model folder given as modelPath (or as a path in model), with the same vectors', async () => {
    const folder = join(bundledModelsDir(), DEFAULT_MODEL);
    const text = 'The customer prefers phone calls after six';
    const expected = await embedOne(embedder, text);
    for (const options of [{ modelPath: folder }, { model: folder }]) {
      const fromFolder = await createTransformersEmbedder(options);
      try {
        expect(fromFolder.modelId).toBe(embedder.modelId);
        expect(fromFolder.fusionWeight).toBe(0.5);
        expect(cosine(await embedOne(fromFolder, text), expected)).toBeCloseTo(1, 6);
      } finally {
        await fromFolder.dispose();
      }
    }
    expect(attempts).toEqual([]);
  });

  it('loads a folder whose name transformers.js would not take as a model id', async () => {
    const folder = join(scratch, 'my+model--copy');
    await cp(join(bundledModelsDir(), DEFAULT_MODEL), folder, { recursive: true });
    const copy = await createTransformersEmbedder({ modelPath: folder });
    try {
      expect(copy.modelId).toBe('transformers.js:my+model--copy');
      expect(copy.fusionWeight).toBe(0.5);
      expect(cosine(await embedOne(copy, 'phone calls'), await embedOne(embedder, 'phone calls'))).toBeCloseTo(1, 6);
    } finally {
      await copy.dispose();
    }
    expect(attempts).toEqual([]);
  });

  it('says what to do for a folder that is missing or holds no model', async () => {
    const missing = await rejection(createTransformersEmbedder({ modelPath: join(scratch, 'nowhere') }));
    expect(missing.code).toBe('EMBEDDER_UNAVAILABLE');
    expect(missing.message).toMatch(/does not exist/);
    const empty = await rejection(createTransformersEmbedder({ modelPath: scratch }));
    expect(empty.code).toBe('EMBEDDER_UNAVAILABLE');
    expect(empty.message).toMatch(/config\.json/);
    expect(attempts).toEqual([]);
  });

  it('rejects bad options with INVALID_INPUT', async () => {
    expect((await rejection(createTransformersEmbedder({ pooling: 'max' as 'mean' }))).code).toBe('INVALID_INPUT');
    expect((await rejection(createTransformersEmbedder({ fusionWeight: 2 }))).code).toBe('INVALID_INPUT');
    expect((await rejection(createTransformersEmbedder({ batchSize: 0 }))).code).toBe('INVALID_INPUT');
    expect((await rejection(createTransformersEmbedder({ batchTokens: 0 }))).code).toBe('INVALID_INPUT');
    expect((await rejection(createTransformersEmbedder({ batchTokens: 1.5 }))).code).toBe('INVALID_INPUT');
    expect((await rejection(createTransformersEmbedder({ allowRemoteModel: true } as object))).code).toBe('INVALID_INPUT');
  });

  it('applies query and document prefixes, and names them in the model id', async () => {
    const prefixed = await createTransformersEmbedder({ queryPrefix: 'weather forecast ', documentPrefix: '' });
    try {
      expect(prefixed.modelId).toBe(`transformers.js:${DEFAULT_MODEL};prefixes=["weather forecast ",""]`);
      const [asQuery] = await prefixed.embed(['phone calls'], 'query');
      const [asDocument] = await prefixed.embed(['phone calls'], 'document');
      const weather = await embedOne(embedder, 'weather forecast');
      expect(cosine(asDocument!, await embedOne(embedder, 'phone calls'))).toBeCloseTo(1, 6);
      expect(cosine(asQuery!, weather)).toBeGreaterThan(cosine(asDocument!, weather) + 0.2);
    } finally {
      await prefixed.dispose();
    }
  });

  it('pools the first token with pooling "cls", and names it in the model id', async () => {
    const cls = await createTransformersEmbedder({ pooling: 'cls' });
    try {
      expect(cls.modelId).toBe(`transformers.js:${DEFAULT_MODEL};pooling=cls`);
      // The bundled model adds no [CLS]: the first token is the first word.
      const [first] = await cls.embed(['phone calls after six'], 'document');
      expect(cosine(first!, await embedOne(embedder, 'phone'))).toBeCloseTo(1, 5);
      expect(cosine(first!, await embedOne(embedder, 'phone calls after six'))).toBeLessThan(0.99);
    } finally {
      await cls.dispose();
    }
  });

  it('fails with EMBEDDER_UNAVAILABLE after dispose', async () => {
    const temporary = await createTransformersEmbedder();
    await temporary.dispose();
    expect((await rejection(temporary.embed(['hello'], 'query'))).code).toBe('EMBEDDER_UNAVAILABLE');
  });

  it('recalls a paraphrase through its vector that BM25 alone misses', async () => {
    const ns = { userId: 'u1', agentId: 'support' };
    const contents = [
      'My automobile broke down on the highway',
      'I adopted a puppy from the animal shelter',
      'The stock market fell sharply today',
      'We went fishing at the lake last summer',
      'She plays violin in an orchestra',
    ];
    const query = 'my car stopped working';

    const lexical = await openMemory({ name: 'lexical', indexedDB: new IDBFactory(), IDBKeyRange });
    try {
      for (const content of contents) await lexical.remember({ namespace: ns, content });
      const result = await lexical.recall(ns, query);
      expect(result.vector).toBe('no-embedder');
      expect(result.hits).toEqual([]); // no word in common
    } finally {
      await lexical.close();
    }

    const memory = await openMemory({ name: 'hybrid', embedder, indexedDB: new IDBFactory(), IDBKeyRange });
    try {
      for (const content of contents) await memory.remember({ namespace: ns, content });
      await memory.whenEmbedded();
      const result = await memory.recall(ns, query, { k: 3 });
      expect(result.vector).toBe('used');
      const top = result.hits[0]!;
      expect(top.record.content).toBe('My automobile broke down on the highway');
      expect(top.explain.bm25).toBeNull();
      expect(top.explain.cosine).toBeGreaterThan(0.5);
      expect(top.explain.contributions.vector).toBeGreaterThan(0);
      expect(result.hits[1]!.explain.cosine!).toBeLessThan(top.explain.cosine! - 0.2);

      // A Chinese memory gets no vector and is still found by its words.
      await memory.remember({ namespace: ns, content: '客户喜欢在晚上六点以后打电话' });
      await memory.whenEmbedded();
      const chinese = await memory.recall(ns, '打电话');
      expect(chinese.vector).toBe('query-not-embeddable');
      expect(chinese.hits[0]?.record.content).toBe('客户喜欢在晚上六点以后打电话');
    } finally {
      await memory.close();
    }
    expect(attempts).toEqual([]);
  });

  it('control: the stubs do see transformers.js reach for the network when remote loading is allowed', async () => {
    const err = await rejection(createTransformersEmbedder({ model: 'Xenova/all-MiniLM-L6-v2', allowRemoteModels: true, cacheDir: join(scratch, 'cache') }));
    expect(err.code).toBe('EMBEDDER_UNAVAILABLE');
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts[0]).toBe('fetch');
    attempts.length = 0;
  });
});

describe('model defaults by name (no model loaded)', () => {
  it('uses cls pooling for BGE, query:/passage: prefixes for E5, mean and 0.5 otherwise, 0.3 for the bundled model', () => {
    expect(defaultSettings('Xenova/bge-small-zh-v1.5')).toMatchObject({ pooling: 'cls', queryPrefix: '', documentPrefix: '', fusionWeight: 0.5 });
    expect(defaultSettings('BAAI/bge-small-en-v1.5').pooling).toBe('cls');
    expect(defaultSettings('Xenova/multilingual-e5-small')).toMatchObject({ pooling: 'mean', queryPrefix: 'query: ', documentPrefix: 'passage: ' });
    expect(defaultSettings('intfloat/e5-small-v2').queryPrefix).toBe('query: ');
    expect(defaultSettings('Xenova/all-MiniLM-L6-v2')).toMatchObject({ pooling: 'mean', queryPrefix: '', fusionWeight: 0.5 });
    expect(defaultSettings('Xenova/gte-small').pooling).toBe('mean'); // "gte" is not "e5"
    expect(defaultSettings(DEFAULT_MODEL).fusionWeight).toBe(0.5);
  });

  it('knows where the onnxruntime-web wasm files are', () => {
    for (const file of onnxWasmFiles()) expect(existsSync(file), file).toBe(true);
  });
});
