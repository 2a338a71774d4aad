/**
 * What the English model of the bundled Node embedder costs: `bundled` (its default,
 * zeromem-static-en, 128-d static) against `minilm` (all-MiniLM-L6-v2, 384-d, 6-layer
 * transformer, its 8-bit graph as `--embedder minilm` runs it) and `minilm-fp32` (the same
 * model's fp32 graph, as `minilm` ran before the 8-bit one), each in its own Node process
 * (load time and resident memory are per process), taking turns:
 *
 *   npx tsx --conditions=development test/bench/en-model-cost.ts [memories=10000] [rounds=2] [sides=bundled,minilm,minilm-fp32]
 *
 * Per process (`... en-model-cost.ts --side bundled|minilm|minilm-fp32 N`):
 *  - the first English text (loads the English model: the load time), resident memory before and after;
 *  - one short query's embedding (~8 words), p50 over 30 after warm-up;
 *  - background embedding: `remember` of N English memories (8-24 words, ~50-150
 *    characters), then `whenEmbedded()`; memories per second, and per CPU-second of the
 *    process (all its threads: a figure other processes' load does not shrink);
 *  - `recall` p50 over 60 distinct queries at N memories, k = 10 (the query's embedding
 *    included), wall and CPU time, and the p50 of the wall time recall spent waiting for
 *    the query's embedding;
 *  - resident memory at the end.
 * Synthetic text from a fixed word list and a seeded PRNG. Prints one JSON line per process
 * with the load average before and after; the driver prints the medians per side.
 */
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { openMemory } from '../../packages/core/src/index.ts';
import { CHINESE_MODEL, MINILM_MODEL, createEmbedderFromChoice, createTransformersEmbedder, routeByScript } from '../../packages/embed-transformers/src/index.ts';
import { mulberry32 as prng } from '../kit/mulberry32.ts';
import { median, summarize } from './stats.ts';

const WORDS = (
  'user prefers phone calls email morning evening weekend coffee tea doctor appointment dentist ' +
  'flight hotel trip paris lyon berlin sister brother mother daughter son wife husband dog cat ' +
  'birthday gift concert guitar cello piano marathon running swimming gym yoga recipe pasta ' +
  'vegetarian allergy peanuts project deadline meeting manager salary laptop phone repair car ' +
  'insurance rent apartment garden moved bought visited booked cancelled likes hates wants ' +
  'the a on in at for with from about last next every since because after before new old'
).split(' ');

function sentences(seed: number, count: number, min: number, max: number): string[] {
  const random = prng(seed);
  return Array.from({ length: count }, () => {
    const length = min + Math.floor(random() * (max - min + 1));
    return Array.from({ length }, () => WORDS[Math.floor(random() * WORDS.length)]!).join(' ');
  });
}

/** CPU time of the whole process (every thread: onnxruntime's too), in ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** p50 of the wall time and of the CPU time of `run` (the CPU time does not grow with other processes' load). */
async function p50(samples: number, run: (i: number) => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  for (let i = 0; i < 3; i++) await run(i);
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    const startCpu = cpuMs();
    await run(i + 3);
    times.push(performance.now() - start);
    cpu.push(cpuMs() - startCpu);
  }
  return { wall: summarize(times).p50, cpu: summarize(cpu).p50 };
}

type Side = 'bundled' | 'minilm' | 'minilm-fp32';

/** The bundled embedder with MiniLM's fp32 graph for English (what `minilm` ran before its 8-bit graph). */
function minilmFp32() {
  const chinese = { dimension: 512, modelId: 'zh', load: () => createTransformersEmbedder({ model: CHINESE_MODEL, dtype: 'q8' }) };
  return routeByScript({ dimension: 384, modelId: 'transformers.js:all-MiniLM-L6-v2', load: () => createTransformersEmbedder({ model: MINILM_MODEL }) }, chinese);
}

async function measure(side: Side, n: number): Promise<Record<string, unknown>> {
  const load = [loadavg()[0]];
  const rssBeforeMB = Math.round(process.memoryUsage().rss / 1e6);
  const embedder = side === 'minilm-fp32' ? minilmFp32() : (await createEmbedderFromChoice({ kind: side }))!;
  let started = performance.now();
  await embedder.embed(['Prefers phone calls over e-mail'], 'document');
  const firstEnglishMs = Math.round(performance.now() - started);
  const rssLoadedMB = Math.round(process.memoryUsage().rss / 1e6);
  const queries = sentences(7, 100, 6, 10);
  const queryEmbed = await p50(30, (i) => embedder.embed([queries[i % queries.length]!], 'query'));

  const memory = await openMemory({ name: `en-cost-${side}`, embedder, indexedDB: new IDBFactory(), IDBKeyRange });
  const ns = { userId: 'bench' };
  const texts = sentences(11, n, 8, 24);
  started = performance.now();
  const embedCpuStart = cpuMs();
  for (let i = 0; i < n; i += 500) await memory.rememberMany(texts.slice(i, i + 500).map((content) => ({ namespace: ns, content })));
  await memory.whenEmbedded();
  const embedAllMs = performance.now() - started;
  const embedAllCpuMs = cpuMs() - embedCpuStart;
  // The query's embedding inside each recall, timed apart (wall, as recall waits for it).
  const embed = embedder.embed.bind(embedder);
  let embedWall = 0;
  (embedder as { embed: typeof embed }).embed = async (texts, kind) => {
    const started = performance.now();
    try {
      return await embed(texts, kind);
    } finally {
      if (kind === 'query') embedWall += performance.now() - started;
    }
  };
  const inRecall: number[] = [];
  const recall = await p50(60, async (i) => {
    embedWall = 0;
    const result = await memory.recall(ns, queries[(i + 30) % queries.length]!, { k: 10, trackAccess: false });
    inRecall.push(embedWall);
    return result;
  });
  await memory.close();
  await embedder.dispose();
  load.push(loadavg()[0]);
  return {
    side,
    embedder: embedder.modelId,
    dimension: embedder.dimension,
    memories: n,
    firstEnglishMs,
    queryEmbedMs: queryEmbed.wall,
    queryEmbedCpuMs: queryEmbed.cpu,
    memoriesPerSecond: Math.round(n / (embedAllMs / 1000)),
    memoriesPerCpuSecond: Math.round(n / (embedAllCpuMs / 1000)),
    recallP50Ms: recall.wall,
    recallP50CpuMs: recall.cpu,
    recallQueryEmbedP50Ms: summarize(inRecall.slice(3)).p50,
    rssBeforeMB,
    rssLoadedMB,
    rssEndMB: Math.round(process.memoryUsage().rss / 1e6),
    load,
  };
}

const sideAt = process.argv.indexOf('--side');
if (sideAt >= 0) {
  const side = process.argv[sideAt + 1] as Side;
  console.log(JSON.stringify(await measure(side, Number(process.argv[sideAt + 2]))));
} else {
  const n = Number(process.argv[2] ?? 10_000);
  const rounds = Number(process.argv[3] ?? 2);
  const sides = (process.argv[4] ?? 'bundled,minilm,minilm-fp32').split(',');
  const runs: Array<Record<string, number | string>> = [];
  for (let round = 0; round < rounds; round++) {
    // Each round starts with another side, so no side always runs first.
    for (const side of sides.map((_, i) => sides[(i + round) % sides.length]!)) {
      const line = execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--side', side, String(n)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
      const run = JSON.parse(line.trim().split('\n').pop()!) as Record<string, number | string>;
      console.log(JSON.stringify(run));
      runs.push(run);
    }
  }
  for (const side of sides) {
    const mine = runs.filter((run) => run.side === side);
    const keys = ['firstEnglishMs', 'queryEmbedMs', 'queryEmbedCpuMs', 'memoriesPerSecond', 'memoriesPerCpuSecond', 'recallP50Ms', 'recallP50CpuMs', 'recallQueryEmbedP50Ms', 'rssLoadedMB', 'rssEndMB'];
    console.log(JSON.stringify({ side, median: Object.fromEntries(keys.map((key) => [key, median(mine.map((run) => Number(run[key])))])) }));
  }
}
