/**
 * Embedding speed of @zeromem/embed-transformers with the bundled model, in Node
 * (onnxruntime-node) and in real Chromium through the Web Worker embedder (onnxruntime-web,
 * WASM, one thread), next to the bare transformers.js pipeline in Node (what the wrapper's
 * unknown-token guard and vector checks cost).
 *
 *   npx tsx test/bench/embed-speed.ts
 *
 * - query: one short query per `embed` call (what `recall` does), 50 warm-up calls, then
 *   p50/p95 over 200 calls. In Chromium the time is taken in the page, so it includes the
 *   postMessage round trip to the worker.
 * - bulk: texts/s through `embed(texts, 'document')` in calls of 64 texts (the size of the
 *   core embed queue's batches), for ~80-character and ~1,000-character texts; 3 rounds,
 *   the median reported (every round in the JSON).
 * In Node the embedder and the bare pipeline take turns (query samples interleaved, bulk
 * rounds alternating who goes first), so a busy machine slows both alike.
 * - load: creating the embedder (model files read, ONNX session created). In Chromium the
 *   first load includes Vite's dev-server transform of transformers.js; the second one
 *   (a new worker) is what a page with warm caches pays.
 *
 * Prints a Markdown table; writes JSON to test/bench/results/embed-speed.json (the latest
 * run, and the earlier ones under `history`). Timing is never a pass/fail test.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpus, loadavg, platform, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DEFAULT_MODEL, bundledModelsDir, createTransformersEmbedder, type TransformersEmbedder } from '@zeromem/embed-transformers';
import type { WorkerEmbedder } from '@zeromem/embed-transformers/browser';
import { findChromium, startHarness } from '../e2e/browser.ts';
import { mulberry32 as prng } from '../kit/mulberry32.ts';
import { SAMPLE_WORDS } from './sample-words.ts';
import { writeWithHistory } from './results-history.ts';

const here = dirname(fileURLToPath(import.meta.url));
const outFile = join(here, 'results', 'embed-speed.json');
const QUERY = { warmup: 50, count: 200 };
const ROUNDS = 3;
const BULK = { call: 64, short: { chars: 80, count: 2000 }, long: { chars: 1000, count: 300 } };

const log = (message: string) => process.stderr.write(`${message}\n`);

const WORDS = SAMPLE_WORDS;

/** `count` texts of about `chars` characters, reproducible. */
function makeTexts(count: number, chars: number, seed: number): string[] {
  const random = prng(seed);
  return Array.from({ length: count }, (_, i) => {
    let text = `#${i}`;
    while (text.length < chars) text += ` ${WORDS[Math.floor(random() * WORDS.length)]}`;
    return text;
  });
}

const QUERIES = [
  'what does the customer prefer',
  'when was the refund approved',
  'which flight was delayed',
  'where is the hotel',
  'what food is she allergic to',
  'when is the doctor appointment',
  'what music does he like',
  'is the warranty extended',
  'who is the project manager',
  'when is the insurance renewal',
];

interface Latency {
  p50: number;
  p95: number;
  mean: number;
  n: number;
}
interface Bulk {
  textsPerSecond: number;
  totalMs: number;
  embedded: number;
}

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

function summarize(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
  return { p50: round(at(50)), p95: round(at(95)), mean: round(sorted.reduce((a, b) => a + b, 0) / sorted.length), n: sorted.length };
}

type EmbedFn = (texts: string[]) => Promise<Array<unknown>>;

/**
 * One short query per call, for several embedders at once: warm-up, then the timed calls
 * interleaved (a, b, a, b...), so that a noisy machine slows them alike.
 */
async function queryLatency(embeds: EmbedFn[]): Promise<Latency[]> {
  for (let i = 0; i < QUERY.warmup; i++) for (const embed of embeds) await embed([QUERIES[i % QUERIES.length]!]);
  const samples = embeds.map(() => [] as number[]);
  for (let i = 0; i < QUERY.count; i++) {
    for (const [k, embed] of embeds.entries()) {
      const started = performance.now();
      await embed([QUERIES[i % QUERIES.length]!]);
      samples[k]!.push(performance.now() - started);
    }
  }
  return samples.map(summarize);
}

async function bulkThroughput(embed: EmbedFn, texts: string[]): Promise<Bulk> {
  await embed(texts.slice(0, BULK.call));
  let embedded = 0;
  const started = performance.now();
  for (let i = 0; i < texts.length; i += BULK.call) {
    const out = await embed(texts.slice(i, i + BULK.call));
    embedded += out.filter((v) => v !== null).length;
  }
  const totalMs = performance.now() - started;
  return { textsPerSecond: Math.round((texts.length / totalMs) * 1000), totalMs: Math.round(totalMs), embedded };
}

/** The run with the median throughput. */
function medianRun(runs: Bulk[]): Bulk & { rounds: number[] } {
  const sorted = [...runs].sort((a, b) => a.textsPerSecond - b.textsPerSecond);
  return { ...sorted[(sorted.length - 1) >> 1]!, rounds: runs.map((r) => r.textsPerSecond) };
}

/** What the bare-pipeline comparison uses of transformers.js. */
interface TransformersJs {
  env: { allowRemoteModels: boolean; localModelPath: string };
  pipeline(
    task: 'feature-extraction',
    model: string,
    options: { local_files_only: boolean },
  ): Promise<((texts: string[], options: { pooling: 'mean'; normalize: boolean }) => Promise<{ dims: number[] }>) & { dispose(): Promise<void> }>;
}

/** The transformers.js module instance the package itself loads (same file, so the same `env`). */
async function transformersModule(): Promise<TransformersJs> {
  const packageJson = join(bundledModelsDir(), '..', 'package.json');
  const cjsEntry = createRequire(packageJson).resolve('@huggingface/transformers');
  return import(pathToFileURL(join(dirname(cjsEntry), 'transformers.node.mjs')).href);
}

interface Side {
  loadMs: number[];
  query: Latency;
  short: Bulk & { rounds: number[] };
  long: Bulk & { rounds: number[] };
}

async function nodeSide(short: string[], long: string[]): Promise<{ embedder: Side; rawPipeline: Omit<Side, 'loadMs'> }> {
  const started = performance.now();
  const embedder: TransformersEmbedder = await createTransformersEmbedder();
  const loadMs = round(performance.now() - started, 1);
  const { pipeline, env } = await transformersModule();
  env.allowRemoteModels = false;
  env.localModelPath = bundledModelsDir();
  const extractor = await pipeline('feature-extraction', DEFAULT_MODEL, { local_files_only: true });
  try {
    const viaEmbedder: EmbedFn = (texts) => embedder.embed(texts, 'document');
    // The bare pipeline in batches of 32 (the embedder's batchSize): no guard, no checks, its own pooling.
    const bare: EmbedFn = async (texts) => {
      const out: unknown[] = [];
      for (let i = 0; i < texts.length; i += 32) {
        const tensor = await extractor(texts.slice(i, i + 32), { pooling: 'mean', normalize: true });
        for (let k = 0; k < tensor.dims[0]!; k++) out.push(k);
      }
      return out;
    };
    const [queryEmbedder, queryBare] = await queryLatency([(texts) => embedder.embed(texts, 'query'), bare]);
    const rounds = { embedderShort: [] as Bulk[], bareShort: [] as Bulk[], embedderLong: [] as Bulk[], bareLong: [] as Bulk[] };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate who goes first.
      const pairs: Array<[Bulk[], EmbedFn, string[]]> = [
        [rounds.embedderShort, viaEmbedder, short],
        [rounds.bareShort, bare, short],
        [rounds.embedderLong, viaEmbedder, long],
        [rounds.bareLong, bare, long],
      ];
      for (const [into, embed, texts] of round % 2 ? pairs.reverse() : pairs) into.push(await bulkThroughput(embed, texts));
    }
    const result = {
      embedder: { loadMs: [loadMs], query: queryEmbedder!, short: medianRun(rounds.embedderShort), long: medianRun(rounds.embedderLong) },
      rawPipeline: { query: queryBare!, short: medianRun(rounds.bareShort), long: medianRun(rounds.bareLong) },
    };
    log(`  node embedder: query p50 ${result.embedder.query.p50} ms, ${result.embedder.short.textsPerSecond} short/s, ${result.embedder.long.textsPerSecond} long/s`);
    log(`  node bare pipeline: query p50 ${result.rawPipeline.query.p50} ms, ${result.rawPipeline.short.textsPerSecond} short/s, ${result.rawPipeline.long.textsPerSecond} long/s`);
    return result;
  } finally {
    await extractor.dispose();
    await embedder.dispose();
  }
}

async function chromiumSide(short: string[], long: string[]): Promise<Side | undefined> {
  if (!findChromium().path) {
    log(`  chromium: skipped (${findChromium().problem})`);
    return undefined;
  }
  const harness = await startHarness();
  try {
    const page = await harness.newPage('embedder.html');
    await page.waitForFunction(() => window.zeromemEmbed !== undefined);
    const load = () =>
      page.evaluate(async () => {
        const previous = window.zeromem.scratch.embedder as WorkerEmbedder | undefined;
        await previous?.dispose();
        const started = performance.now();
        window.zeromem.scratch.embedder = await window.zeromemEmbed.create();
        return performance.now() - started;
      });
    const loadMs = [round(await load(), 1), round(await load(), 1)];
    const query = await page.evaluate(
      (args) => window.zeromemEmbed.bench.queryLatency(window.zeromem.scratch.embedder as WorkerEmbedder, args),
      { queries: QUERIES, ...QUERY },
    );
    const bulk = (texts: string[]) =>
      page.evaluate((args) => window.zeromemEmbed.bench.bulkThroughput(window.zeromem.scratch.embedder as WorkerEmbedder, args), { texts, batch: BULK.call });
    const shortRuns: Bulk[] = [];
    const longRuns: Bulk[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      shortRuns.push(roundBulk(await bulk(short)));
      longRuns.push(roundBulk(await bulk(long)));
    }
    const side: Side = {
      loadMs,
      query: { p50: round(query.p50), p95: round(query.p95), mean: round(query.mean), n: query.n },
      short: medianRun(shortRuns),
      long: medianRun(longRuns),
    };
    await page.evaluate(() => (window.zeromem.scratch.embedder as WorkerEmbedder).dispose());
    log(`  chromium worker: query p50 ${side.query.p50} ms, ${side.short.textsPerSecond} short/s, ${side.long.textsPerSecond} long/s`);
    return side;
  } finally {
    await harness.close();
  }
}

const roundBulk = (b: Bulk): Bulk => ({ textsPerSecond: Math.round(b.textsPerSecond), totalMs: Math.round(b.totalMs), embedded: b.embedded });

function chromiumVersion(path: string | undefined): string | undefined {
  if (!path) return undefined;
  try {
    return execFileSync(path, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const short = makeTexts(BULK.short.count, BULK.short.chars, 1);
  const long = makeTexts(BULK.long.count, BULK.long.chars, 2);
  const avg = (texts: string[]) => Math.round(texts.reduce((n, t) => n + t.length, 0) / texts.length);
  const loadBefore = loadavg()[0]!;
  const started = Date.now();
  log('embed-speed: node');
  const node = await nodeSide(short, long);
  log('embed-speed: chromium');
  const chromium = await chromiumSide(short, long);

  const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : Math.round((a / b) * 100) / 100);
  const result = {
    date: new Date().toISOString(),
    machine: { platform: `${platform()} ${release()}`, cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version, chromium: chromiumVersion(findChromium().path), loadAverage: [round(loadBefore, 2), round(loadavg()[0]!, 2)] },
    model: DEFAULT_MODEL,
    settings: { query: QUERY, bulk: { textsPerCall: BULK.call, short: { count: short.length, avgChars: avg(short) }, long: { count: long.length, avgChars: avg(long) } } },
    node: node.embedder,
    nodeBarePipeline: node.rawPipeline,
    chromiumWorker: chromium,
    ratios: {
      queryP50ChromiumOverNode: ratio(chromium?.query.p50, node.embedder.query.p50),
      shortThroughputNodeOverChromium: ratio(node.embedder.short.textsPerSecond, chromium?.short.textsPerSecond),
      longThroughputNodeOverChromium: ratio(node.embedder.long.textsPerSecond, chromium?.long.textsPerSecond),
      queryP50EmbedderOverBarePipeline: ratio(node.embedder.query.p50, node.rawPipeline.query.p50),
      shortThroughputBarePipelineOverEmbedder: ratio(node.rawPipeline.short.textsPerSecond, node.embedder.short.textsPerSecond),
      longThroughputBarePipelineOverEmbedder: ratio(node.rawPipeline.long.textsPerSecond, node.embedder.long.textsPerSecond),
    },
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };

  const c = (value: number | string | undefined) => (value === undefined ? 'not run' : String(value));
  const rows: Array<[string, number | undefined, number | undefined, number | undefined]> = [
    ['load (ms; Chromium: first / new worker)', node.embedder.loadMs[0], undefined, undefined],
    ['query p50 (ms)', node.embedder.query.p50, chromium?.query.p50, node.rawPipeline.query.p50],
    ['query p95 (ms)', node.embedder.query.p95, chromium?.query.p95, node.rawPipeline.query.p95],
    [`bulk ~${avg(short)} chars (texts/s)`, node.embedder.short.textsPerSecond, chromium?.short.textsPerSecond, node.rawPipeline.short.textsPerSecond],
    [`bulk ~${avg(long)} chars (texts/s)`, node.embedder.long.textsPerSecond, chromium?.long.textsPerSecond, node.rawPipeline.long.textsPerSecond],
  ];
  const table = [
    `Embedding speed, ${DEFAULT_MODEL} (128-d static), ${result.machine.cpus} CPUs, ${result.date}`,
    '',
    '| Measurement | Node embedder | Chromium worker embedder | Node bare pipeline |',
    '|---|---|---|---|',
    ...rows.map(([label, n, ch, raw], i) => `| ${label} | ${c(n)} | ${i === 0 ? c(chromium?.loadMs.join(' / ')) : c(ch)} | ${i === 0 ? '—' : c(raw)} |`),
    '',
    `Ratios: query p50 Chromium/Node ${c(result.ratios.queryP50ChromiumOverNode)}; throughput Node/Chromium short ${c(result.ratios.shortThroughputNodeOverChromium)}, long ${c(result.ratios.longThroughputNodeOverChromium)}; ` +
      `embedder vs bare pipeline: query p50 ${c(result.ratios.queryP50EmbedderOverBarePipeline)}x, throughput bare/embedder short ${c(result.ratios.shortThroughputBarePipelineOverEmbedder)}, long ${c(result.ratios.longThroughputBarePipelineOverEmbedder)}.`,
  ].join('\n');
  console.log(table);

    writeWithHistory(outFile, result);
  log(`wrote ${outFile}`);
}

await main();
