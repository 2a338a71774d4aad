/**
 * The static English model in plain JavaScript (src/node/static-model.ts, what
 * `createTransformersEmbedder()` runs now) against the same model through transformers.js
 * and onnxruntime-node (what it ran before), in the same run:
 *
 *   npx tsc -b packages/embed-transformers/tsconfig.build.json && npx tsx test/bench/static-embed.ts
 *
 * - cold: a fresh `node` process (the built dist/, as a user runs it) from start to the
 *   first vector: importing the package, reading the model, one embed; and its resident
 *   memory then. 7 processes each, the two kinds taking turns.
 * - warm, in one process: texts/s through `embed(texts, 'document')` in calls of 64 (the
 *   embed queue's batches) for ~80- and ~1,000-character texts of the model's vocabulary,
 *   and one short query per call (p50), 5 rounds with the two sides taking turns (who goes
 *   first alternates); medians, with every round printed.
 * Writes test/bench/results/static-embed.json.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32 as prng } from '../kit/mulberry32.ts';
import { median } from './stats.ts';

const dist = (file: string) => new URL(`../../packages/embed-transformers/dist/${file}`, import.meta.url).href;
const { DEFAULT_MODEL, bundledModelsDir, createTransformersEmbedder, defaultSettings } = (await import(dist('index.js'))) as typeof import('../../packages/embed-transformers/src/index.ts');
const { loadExtractor } = (await import(dist('load-extractor.js'))) as typeof import('../../packages/embed-transformers/src/load-extractor.ts');
const { pipelineEmbedder } = (await import(dist('pipeline-embedder.js'))) as typeof import('../../packages/embed-transformers/src/pipeline-embedder.ts');

type Kind = 'js' | 'onnx';
const KINDS: Kind[] = ['js', 'onnx'];
const COLD_RUNS = 7;
const ROUNDS = 5;
const CALL = 64;

/** A fresh process: ms from its start to the first vector, and its resident MB then. */
function cold(kind: Kind): { ms: number; rssMb: number } {
  const script = `
    const t0 = performance.timeOrigin;
    let embedder;
    if (${JSON.stringify(kind)} === 'js') {
      const { createTransformersEmbedder } = await import(${JSON.stringify(dist('index.js'))});
      embedder = await createTransformersEmbedder();
    } else {
      const { bundledModelsDir, defaultSettings } = await import(${JSON.stringify(dist('index.js'))});
      const { loadExtractor } = await import(${JSON.stringify(dist('load-extractor.js'))});
      const { pipelineEmbedder } = await import(${JSON.stringify(dist('pipeline-embedder.js'))});
      const loaded = await loadExtractor({ model: 'zeromem-static-en', localModelPath: bundledModelsDir(), allowRemoteModels: false, notFoundHint: '' });
      embedder = await pipelineEmbedder(loaded.extractor, defaultSettings('zeromem-static-en'), { modelId: 'x', model: 'x' }, loaded.dispose);
    }
    await embedder.embed(['Prefers phone calls over e-mail'], 'document');
    const ms = Date.now() - t0;
    const rss = Number(/VmRSS:\\s+(\\d+)/.exec((await import('node:fs')).readFileSync('/proc/self/status', 'utf8'))[1]);
    console.log(JSON.stringify({ ms, rssMb: Math.round(rss / 1024) }));
    process.exit(0);`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

/** `count` texts of about `chars` characters from the model's vocabulary (its 5,000 most frequent words), reproducible. */
function makeTexts(words: string[], count: number, chars: number, seed: number): string[] {
  const random = prng(seed);
  return Array.from({ length: count }, () => {
    let text = words[Math.floor(random() * words.length)]!;
    while (text.length < chars) text += `${random() < 0.08 ? ',' : ''} ${words[Math.floor(random() ** 2 * words.length)]}`;
    return text;
  });
}

const coldRuns: Record<Kind, Array<{ ms: number; rssMb: number }>> = { js: [], onnx: [] };
for (let run = 0; run < COLD_RUNS; run++) {
  for (const kind of run % 2 ? [...KINDS].reverse() : KINDS) coldRuns[kind].push(cold(kind));
  console.error(`cold ${run + 1}/${COLD_RUNS}: ${JSON.stringify({ js: coldRuns.js.at(-1), onnx: coldRuns.onnx.at(-1) })}`);
}

const vocab = Object.keys((JSON.parse(readFileSync(join(bundledModelsDir(), DEFAULT_MODEL, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> } }).model.vocab).slice(2, 5002);
const sets = { short: makeTexts(vocab, 4000, 80, 1), long: makeTexts(vocab, 400, 1000, 2) };
const queries = makeTexts(vocab, 50, 30, 3);

const js = await createTransformersEmbedder();
const loaded = await loadExtractor({ model: DEFAULT_MODEL, localModelPath: bundledModelsDir(), allowRemoteModels: false, notFoundHint: '' });
const onnx = await pipelineEmbedder(loaded.extractor, defaultSettings(DEFAULT_MODEL), { modelId: js.modelId, model: DEFAULT_MODEL }, loaded.dispose);
const embedders = { js, onnx };

async function throughput(kind: Kind, texts: string[]): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < texts.length; i += CALL) await embedders[kind].embed(texts.slice(i, i + CALL), 'document');
  return Math.round((texts.length / (performance.now() - started)) * 1000);
}

async function queryP50(kind: Kind): Promise<number> {
  const samples: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    await embedders[kind].embed([query], 'query');
    samples.push(performance.now() - started);
  }
  return Math.round(median(samples) * 1000) / 1000;
}

for (const kind of KINDS) await throughput(kind, sets.short.slice(0, 640)); // warm-up
const warm: Record<Kind, { short: number[]; long: number[]; queryP50Ms: number[] }> = { js: { short: [], long: [], queryP50Ms: [] }, onnx: { short: [], long: [], queryP50Ms: [] } };
for (let round = 0; round < ROUNDS; round++) {
  for (const kind of round % 2 ? [...KINDS].reverse() : KINDS) {
    warm[kind].short.push(await throughput(kind, sets.short));
    warm[kind].long.push(await throughput(kind, sets.long));
    warm[kind].queryP50Ms.push(await queryP50(kind));
  }
  console.error(`warm ${round + 1}/${ROUNDS}: ${JSON.stringify(Object.fromEntries(KINDS.map((k) => [k, { short: warm[k].short.at(-1), long: warm[k].long.at(-1), queryP50Ms: warm[k].queryP50Ms.at(-1) }])))}`);
}
await js.dispose();
await onnx.dispose();

const summary = Object.fromEntries(
  KINDS.map((k) => [
    k,
    {
      coldMs: median(coldRuns[k].map((r) => r.ms)),
      coldRssMb: median(coldRuns[k].map((r) => r.rssMb)),
      shortTextsPerS: median(warm[k].short),
      longTextsPerS: median(warm[k].long),
      queryP50Ms: median(warm[k].queryP50Ms),
    },
  ]),
) as Record<Kind, { coldMs: number; coldRssMb: number; shortTextsPerS: number; longTextsPerS: number; queryP50Ms: number }>;
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
const result = {
  date: new Date().toISOString(),
  loadAverage: loadavg().map((x) => Math.round(x * 10) / 10),
  texts: { short: { count: sets.short.length, chars: 80 }, long: { count: sets.long.length, chars: 1000 }, textsPerCall: CALL },
  medians: summary,
  ratios: {
    coldMsOnnxOverJs: ratio(summary.onnx.coldMs, summary.js.coldMs),
    shortJsOverOnnx: ratio(summary.js.shortTextsPerS, summary.onnx.shortTextsPerS),
    longJsOverOnnx: ratio(summary.js.longTextsPerS, summary.onnx.longTextsPerS),
    queryP50OnnxOverJs: ratio(summary.onnx.queryP50Ms, summary.js.queryP50Ms),
  },
  cold: coldRuns,
  warm,
};
console.log(JSON.stringify({ loadAverage: result.loadAverage, medians: result.medians, ratios: result.ratios }, null, 2));
writeFileSync(fileURLToPath(new URL('./results/static-embed.json', import.meta.url)), `${JSON.stringify(result, null, 2)}\n`);
