/**
 * The static English model runs in plain JavaScript (src/node/static-model.ts): the same
 * vectors as onnxruntime through transformers.js on a seeded corpus (vocabulary words,
 * case, accents, punctuation, unknown words, CJK, emoji, control characters, added-token
 * literals, long texts), and no ONNX runtime in the process that embeds with it.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODEL, bundledModelsDir, createTransformersEmbedder, defaultSettings, type TransformersEmbedder } from '@zeromem/embed-transformers';
import { testSeed } from '../../../test/kit/seed.ts';
import { loadExtractor } from '../src/load-extractor.ts';
import { pipelineEmbedder } from '../src/pipeline-embedder.ts';
import { readTokenizerJson } from '../src/static-tokenizer.ts';
import { mulberry32 as prng } from '../../../test/kit/mulberry32.ts';

const EXTRAS = ['Café', 'NAÏVE', 'résumé', 'Straße', 'İstanbul', 'ǅemal', 'ﬁnal', 'ＡＢＣ', '用户', '喜欢', '𠀀', '🙂', '📞', 'e-mail', '15:00', "don't", '(x)', '—', '«quoted»', '[UNK]', '[PAD]', '\u200b', '\u00ad', '\u0000', '\t', '\n', 'zzqxv', 'x'.repeat(120), 'Ω', '١٢٣', 'ﾃｽﾄ', '\ufffd'];

function corpus(seed: number, size: number): string[] {
  const random = prng(seed);
  const vocab = Object.keys((JSON.parse(readFileSync(join(bundledModelsDir(), DEFAULT_MODEL, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> } }).model.vocab);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const texts = ['Prefers phone calls over e-mail', 'probe', '', '   ', '...', 'The user moved to Berlin in 2021.'];
  for (let i = 0; i < size; i++) {
    const words = 1 + Math.floor(random() ** 3 * (random() < 0.02 ? 3000 : 60));
    const parts: string[] = [];
    for (let w = 0; w < words; w++) {
      let word = random() < 0.85 ? pick(vocab) : pick(EXTRAS);
      if (random() < 0.15) word = word.toUpperCase();
      else if (random() < 0.2) word = word[0]!.toUpperCase() + word.slice(1);
      parts.push(word, random() < 0.1 ? pick([', ', '. ', '! ', '? ', ';', '  ', '\n', '-']) : ' ');
    }
    texts.push(parts.join('').trim());
  }
  return texts;
}

describe('the static model in plain JavaScript', () => {
  let js: TransformersEmbedder;
  let onnx: TransformersEmbedder;

  beforeAll(async () => {
    js = await createTransformersEmbedder();
    // The same folder through transformers.js and onnxruntime-node, as every model ran before.
    const settings = defaultSettings(DEFAULT_MODEL);
    const loaded = await loadExtractor({ model: DEFAULT_MODEL, localModelPath: bundledModelsDir(), allowRemoteModels: false, notFoundHint: '' });
    onnx = await pipelineEmbedder(loaded.extractor, settings, { modelId: js.modelId, model: DEFAULT_MODEL }, loaded.dispose);
  }, 120_000);

  afterAll(async () => {
    await js?.dispose();
    await onnx?.dispose();
  });

  it('gives the vectors onnxruntime gives, text by text, on a seeded corpus (documents and queries)', async () => {
    const seed = testSeed('static-model corpus', 'STATIC_MODEL_SEED');
    const texts = corpus(seed, 1500);
    for (const kind of ['document', 'query'] as const) {
      const [expected, actual] = [await onnx.embed(texts, kind), await js.embed(texts, kind)];
      let compared = 0;
      texts.forEach((text, i) => {
        const [a, b] = [expected[i], actual[i]];
        if (!a || !b) {
          expect(b === null, `vector or null for ${JSON.stringify(text.slice(0, 80))}`).toBe(a === null);
          return;
        }
        compared++;
        let worst = 0;
        for (let k = 0; k < a.length; k++) worst = Math.max(worst, Math.abs(a[k]! - b[k]!));
        expect(worst, `largest difference for ${JSON.stringify(text.slice(0, 80))}`).toBeLessThanOrEqual(1e-6);
      });
      expect(compared).toBeGreaterThan(texts.length / 2);
    }
    expect(js.modelId).toBe(onnx.modelId);
    expect(js.dimension).toBe(128);
  }, 120_000);

  it('loads no ONNX runtime and no transformers.js into the process that embeds with it', () => {
    if (process.platform !== 'linux') return; // reads /proc/self/maps
    const script = `
      const { createTransformersEmbedder } = await import('@zeromem/embed-transformers');
      const embedder = await createTransformersEmbedder();
      const [vector] = await embedder.embed(['Prefers phone calls over e-mail'], 'document');
      const { readFileSync } = await import('node:fs');
      const maps = readFileSync('/proc/self/maps', 'utf8');
      console.log(JSON.stringify({ length: vector.length, onnxruntime: /onnxruntime/.test(maps) }));`;
    const out = execFileSync(process.execPath, ['--conditions=development', '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      encoding: 'utf8',
    });
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual({ length: 128, onnxruntime: false });
  }, 60_000);
});

describe('tokenizer.json read for the static model', () => {
  const asParsed = (json: { model?: { vocab?: unknown } }) => ({ ...json, model: { ...json.model, vocab: new Map(Object.entries(json.model!.vocab as object)) } });

  it('gives what JSON.parse gives, the vocabulary as a Map (the bundled file, escapes, spacing, an empty vocabulary)', () => {
    const bundled = readFileSync(join(bundledModelsDir(), DEFAULT_MODEL, 'tokenizer.json'), 'utf8');
    const odd = JSON.stringify({ version: '1.0', added_tokens: [{ id: 0, content: '"vocab": {' }], model: { type: 'WordPiece', unk_token: '[UNK]', vocab: { '[UNK]': 0, '}': 1, '"': 2, '\\': 3, 'é': 4, '\u2028x': 5, '{"a": 1}': 6 } }, normalizer: { type: 'BertNormalizer' } }, null, 1);
    const empty = '{"model": {"vocab": { }, "type": "WordPiece"}}';
    for (const text of [bundled, odd, empty]) expect(readTokenizerJson(text)).toEqual(asParsed(JSON.parse(text)));
    expect(readTokenizerJson(bundled).model!.vocab).toBeInstanceOf(Map);
  });

  it('reads a vocabulary it does not expect (not ids, not where model.vocab is) as JSON.parse does', () => {
    for (const text of ['{"model": {"vocab": {"a": "x"}}}', '{"other": {"vocab": {"a": 1}}, "model": {"vocab": {"b": 2}}}', '{"model": {"vocab": [["a", 1.5]]}}']) {
      const parsed = JSON.parse(text) as { model: { vocab: unknown } };
      const read = readTokenizerJson(text);
      expect(read.model!.vocab instanceof Map ? Object.fromEntries(read.model!.vocab as Map<string, number>) : read.model!.vocab).toEqual(parsed.model.vocab);
    }
    expect(() => readTokenizerJson('{"model": {"vocab": {"a": 1,}}}')).toThrow(SyntaxError);
  });
});
