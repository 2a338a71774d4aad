// Builds zeromem-static-zh: a static Chinese embedding model distilled from the bundled
// bge-small-zh-v1.5, the way zeromem-static-en was distilled from its teacher (MODEL.md):
//
// 1. Teacher: bge-small-zh-v1.5 (CLS pooling) embeds every token of its own vocabulary
//    alone (21,128 tokens; `##` continuation pieces without the `##`). Cached in
//    models/.cache/ (git-ignored).
// 2. PCA 512 -> 128, rows unit-normalised.
// 3. Token probabilities p(t) from the word frequencies of jieba's dictionary (npm
//    `@node-rs/jieba`, MIT: 349k words with counts), each word's count given to every
//    token the teacher's tokenizer makes of it; tokens it never makes get the smallest p.
//    SIF weights a/(a+p(t)), a = 1e-4 (as for zeromem-static-en).
// 4. Common-component removal: the first principal direction of the probability-weighted
//    rows is projected out.
// 5. int8 rows with a per-row scale, the SIF weight folded into it; special tokens ([PAD],
//    [UNK], [CLS], [SEP], [MASK], [unused…]) get a zero row.
// 6. Written out as a transformers.js model folder with the teacher's own tokenizer, so a
//    text's tokens are exactly the teacher's.
//
// pnpm --filter @zeromem/embed-transformers build:model-zh (installs @node-rs/jieba@2.0.3 into
// models/.cache/build-deps, then runs this with tsx). Needs models/bge-small-zh-v1.5
// (scripts/fetch-zh-model.mjs). Options: --dims 128, --sif-a 1e-4, --out, --teacher, --cache.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AutoTokenizer } from '@huggingface/transformers';
import { createTransformersEmbedder } from '../src/node/create-transformers-embedder.ts';
import { normalizeRows, pca, removeCommonDirections } from './linear-algebra.ts';
import { encodeStaticModel, int8LookupGraph, quantizeRows } from './static-graph.ts';

const pkgRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    dims: { type: 'string', default: '128' },
    'sif-a': { type: 'string', default: '1e-4' },
    out: { type: 'string', default: join(pkgRoot, 'models', 'zeromem-static-zh') },
    teacher: { type: 'string', default: join(pkgRoot, 'models', 'bge-small-zh-v1.5') },
    cache: { type: 'string', default: join(pkgRoot, 'models', '.cache') },
  },
});
const dims = Number(values.dims);
const sifA = Number(values['sif-a']);
const TEACHER_DIM = 512;

const tokenizer = JSON.parse(readFileSync(join(values.teacher, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> } };
const vocab = tokenizer.model.vocab;
const vocabSize = Math.max(...Object.values(vocab)) + 1;
/** Tokens that carry no text: special and unused slots. */
const isSpecial = (token: string) => /^\[[A-Za-z0-9_]+\]$/.test(token);

async function teacherRows(): Promise<Float32Array> {
  const cacheFile = join(values.cache, `bge-small-zh-v1.5-tokens-${vocabSize}.f32`);
  if (existsSync(cacheFile)) return new Float32Array(readFileSync(cacheFile).buffer.slice(0));
  const teacher = await createTransformersEmbedder({ modelPath: values.teacher, dtype: 'q8', maxUnknownFraction: 1, batchSize: 512 });
  const rows = new Float32Array(vocabSize * TEACHER_DIM);
  const entries = Object.entries(vocab).filter(([token]) => !isSpecial(token));
  const started = Date.now();
  for (let start = 0; start < entries.length; start += 2048) {
    const batch = entries.slice(start, start + 2048);
    const vectors = await teacher.embed(batch.map(([token]) => (token.startsWith('##') ? token.slice(2) : token)), 'document');
    batch.forEach(([, id], i) => vectors[i] && rows.set(vectors[i]!, id * TEACHER_DIM));
    console.log(`teacher: ${start + batch.length} of ${entries.length} tokens (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  await teacher.dispose();
  mkdirSync(values.cache, { recursive: true });
  writeFileSync(cacheFile, Buffer.from(rows.buffer));
  return rows;
}

/** p(token) from jieba's dictionary word counts, spread over the tokens of each word. */
async function tokenProbabilities(): Promise<Float64Array> {
  const require = createRequire(join(pkgRoot, 'models', '.cache', 'build-deps', 'package.json'));
  const lines = readFileSync(require.resolve('@node-rs/jieba/dict.txt'), 'utf8').split('\n');
  const hf = await AutoTokenizer.from_pretrained(values.teacher, { local_files_only: true });
  const counts = new Float64Array(vocabSize);
  for (const line of lines) {
    const [word, count] = line.split(' ');
    if (!word || !count) continue;
    for (const id of hf.encode(word, { add_special_tokens: false })) counts[id]! += Number(count);
  }
  const total = counts.reduce((sum, c) => sum + c, 0);
  const seen = [...counts].filter((c) => c > 0);
  const floor = Math.min(...seen) / total;
  return counts.map((c) => (c > 0 ? c / total : floor));
}

const started = Date.now();
const teacher = await teacherRows();
const prob = await tokenProbabilities();
const textIds = Object.entries(vocab).filter(([token]) => !isSpecial(token)).map(([, id]) => id).sort((a, b) => a - b);
const n = textIds.length;
const dense = new Float32Array(n * TEACHER_DIM);
textIds.forEach((id, i) => dense.set(teacher.subarray(id * TEACHER_DIM, (id + 1) * TEACHER_DIM), i * TEACHER_DIM));
console.log(`PCA ${TEACHER_DIM} -> ${dims} over ${n} tokens ...`);
const { components, mean } = pca(dense, n, TEACHER_DIM, dims);
const reduced = new Float32Array(n * dims);
for (let i = 0; i < n; i++) {
  for (let c = 0; c < dims; c++) {
    let sum = 0;
    for (let j = 0; j < TEACHER_DIM; j++) sum += (dense[i * TEACHER_DIM + j]! - mean[j]!) * components[c * TEACHER_DIM + j]!;
    reduced[i * dims + c] = sum;
  }
}
normalizeRows(reduced, n, dims);
removeCommonDirections(reduced, n, dims, Float64Array.from(textIds, (id) => prob[id]!), 1);

const rows = new Float32Array(vocabSize * dims);
textIds.forEach((id, i) => rows.set(reduced.subarray(i * dims, (i + 1) * dims), id * dims));
const { q, scale } = quantizeRows(rows, vocabSize, dims, (id) => sifA / (sifA + prob[id]!));
mkdirSync(join(values.out, 'onnx'), { recursive: true });
writeFileSync(join(values.out, 'onnx', 'model.onnx'), encodeStaticModel(int8LookupGraph(q, scale, vocabSize, dims), dims));
for (const file of ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json']) copyFileSync(join(values.teacher, file), join(values.out, file));
const info = { teacher: 'BAAI/bge-small-zh-v1.5 (onnx/model_quantized.onnx, CLS pooling)', tokens: n, dims, removePc: 1, dtype: 'int8', sifA, weighting: 'SIF a/(a+p(t)), p(t) from the word counts of @node-rs/jieba 2.0.3 dict.txt' };
writeFileSync(
  join(values.out, 'config.json'),
  `${JSON.stringify(
    {
      model_type: 'bert',
      architectures: ['BertModel'],
      hidden_size: dims,
      vocab_size: vocabSize,
      pad_token_id: 0,
      max_position_embeddings: 512,
      'transformers.js_config': { dtype: 'fp32' },
      zeromem: { kind: 'static-embedding', pooling: 'mean', normalize: true, ...info },
    },
    null,
    2,
  )}\n`,
);
writeFileSync(join(values.out, 'build-info.json'), `${JSON.stringify(info, null, 2)}\n`);
console.log(`wrote ${values.out} (${dims}-d, model.onnx ${(q.length / 1e6).toFixed(1)} MB) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
