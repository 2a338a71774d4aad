/**
 * Where MiniLM's time goes on long conversation turns (LongMemEval), and whether the way
 * texts are batched changes it: the 8-bit graph `--embedder minilm` runs, on a seeded sample
 * of the LongMemEval sample's memories, in one process, the variants taking turns:
 *
 *   npx tsx --conditions=development test/bench/minilm-long-turns.ts [texts=256] [rounds=3] [memories.jsonl(.gz)]
 *   (BUDGETS=512,1024,2048,4096 the `batchTokens` values to compare; a MADial-en memories file for short texts)
 *
 * calls of 64 texts in the order they come (core's embed queue calls the embedder so), and
 * - `rows32`: batches of 32 texts padded to their longest (as before `batchTokens`);
 * - `tokensN`: batches of texts of similar word-piece counts, at most N word pieces a batch
 *   (rows x longest; `batchTokens`, default 256) and 32 rows.
 * Per variant: CPU ms a text (all threads of the process: a figure the other processes'
 * load shrinks less than wall time), texts/s wall, and the word pieces the model ran
 * (real + padding, from the tokenizer). Also: the tokenizer's own time, how many texts are
 * cut at 256 word pieces, and the lowest cosine between a text's vectors in two variants
 * (batching must not change a vector). Prints one JSON line per round and a summary.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundledModelsDir, createTransformersEmbedder, MINILM_MODEL } from '../../packages/embed-transformers/src/index.ts';
import { mulberry32 as prng } from '../kit/mulberry32.ts';

const n = Number(process.argv[2] ?? 256);
const rounds = Number(process.argv[3] ?? 3);
const file = process.argv[4] ?? '../shared/bench-data/longmemeval-s-sample/memories.jsonl.gz';
const CALL = 64;
const MAX_TOKENS = 256;

const lines = (file.endsWith('.gz') ? execFileSync('gunzip', ['-c', file], { maxBuffer: 1 << 30 }).toString('utf8') : readFileSync(file, 'utf8')).split('\n').filter(Boolean);
const random = prng(20261206);
console.log(`seed 20261206: ${n} of ${lines.length} memories`);
const texts: string[] = [];
for (const i of new Set(Array.from({ length: n * 2 }, () => Math.floor(random() * lines.length)))) {
  const text = (JSON.parse(lines[i]!) as { text: string }).text;
  if (!/\p{Script=Han}/u.test(text)) texts.push(text);
  if (texts.length === n) break;
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

// transformers.js is a dependency of the embed package only: resolved from there.
const transformersPath = createRequire(fileURLToPath(new URL('../../packages/embed-transformers/package.json', import.meta.url))).resolve('@huggingface/transformers');
interface Transformers {
  env: { allowRemoteModels: boolean; localModelPath: string };
  AutoTokenizer: { from_pretrained(model: string): Promise<(text: string, options: { truncation: boolean }) => { input_ids: { dims: number[] } }> };
}
const { AutoTokenizer, env } = (await import(pathToFileURL(transformersPath).href)) as Transformers;
env.allowRemoteModels = false;
env.localModelPath = bundledModelsDir();
const tokenizer = await AutoTokenizer.from_pretrained(MINILM_MODEL);
let tokStart = cpuMs();
const full = texts.map((text) => tokenizer(text, { truncation: false }).input_ids.dims[1]!);
const tokenizeMsPerText = (cpuMs() - tokStart) / texts.length;
const lengths = full.map((tokens) => Math.min(tokens, MAX_TOKENS));
const chars = texts.map((t) => t.length).sort((a, b) => a - b);

/** Word pieces the model runs on calls of `call` texts, rows in word-piece order, batches of at most `batch` rows and `budget` word pieces (the embedder's rule). */
function pieces(call: number, batch: number, budget: number): { real: number; padded: number } {
  let real = 0;
  let padded = 0;
  for (let c = 0; c < texts.length; c += call) {
    const part = lengths.slice(c, c + call).sort((a, b) => a - b);
    for (let start = 0; start < part.length; ) {
      let end = start + 1;
      while (end < part.length && end - start < batch && (end - start + 1) * part[end]! <= budget) end++;
      real += part.slice(start, end).reduce((s, x) => s + x, 0);
      padded += part[end - 1]! * (end - start);
      start = end;
    }
  }
  return { real, padded };
}

type Variant = { name: string; batch: number; budget: number; call: number };
/** `rows32`: batches of 32 rows padded to their longest, as before the word-piece budget. */
const variants: Variant[] = [
  { name: 'rows32', batch: 32, budget: 1_048_576, call: CALL },
  ...(process.env.BUDGETS ?? '512,1024,2048,4096').split(',').map(Number).map((budget) => ({ name: `tokens${budget}`, batch: 32, budget, call: CALL })),
];
const embedders = new Map<string, Awaited<ReturnType<typeof createTransformersEmbedder>>>();
for (const v of variants) embedders.set(v.name, await createTransformersEmbedder({ model: MINILM_MODEL, dtype: 'q8', batchSize: v.batch, batchTokens: v.budget }));

const results: Record<string, { cpuPerText: number[]; perSecond: number[] }> = {};
const vectors = new Map<string, Array<Float32Array | null>>();
for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? [...variants].reverse() : variants;
  for (const v of order) {
    const embedder = embedders.get(v.name)!;
    const out: Array<Float32Array | null> = [];
    const load = loadavg()[0]!;
    const wall = performance.now();
    const cpu = cpuMs();
    for (let c = 0; c < texts.length; c += v.call) out.push(...(await embedder.embed(texts.slice(c, c + v.call), 'document')));
    const cpuPerText = (cpuMs() - cpu) / texts.length;
    const perSecond = texts.length / ((performance.now() - wall) / 1000);
    (results[v.name] ??= { cpuPerText: [], perSecond: [] }).cpuPerText.push(cpuPerText);
    results[v.name]!.perSecond.push(perSecond);
    vectors.set(v.name, out);
    console.log(JSON.stringify({ round, variant: v.name, cpuMsPerText: +cpuPerText.toFixed(2), textsPerSecond: +perSecond.toFixed(1), load1: load }));
  }
}

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const base = vectors.get('rows32')!;
let lowest = 1;
for (const v of variants) vectors.get(v.name)!.forEach((vec, i) => (lowest = Math.min(lowest, vec && base[i] ? cos(vec, base[i]) : vec === base[i] ? 1 : -1)));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
console.log(
  JSON.stringify(
    {
      texts: texts.length,
      charsMedian: chars[Math.floor(chars.length / 2)],
      charsP90: chars[Math.floor(chars.length * 0.9)],
      wordPiecesMean: +(full.reduce((s, x) => s + x, 0) / full.length).toFixed(1),
      cutAt256: full.filter((x) => x > MAX_TOKENS).length,
      wordPiecesAfterCut: lengths.reduce((s, x) => s + x, 0),
      tokenizeCpuMsPerText: +tokenizeMsPerText.toFixed(3),
      variants: Object.fromEntries(
        variants.map((v) => [v.name, { ...pieces(v.call, v.batch, v.budget), cpuMsPerText: +median(results[v.name]!.cpuPerText).toFixed(2), textsPerSecond: +median(results[v.name]!.perSecond).toFixed(1) }]),
      ),
      lowestCosineToRows32: +lowest.toFixed(6),
      load: loadavg(),
    },
    null,
    1,
  ),
);
for (const e of embedders.values()) await e.dispose();
