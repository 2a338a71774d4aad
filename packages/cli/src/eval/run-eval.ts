import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DEFAULT_MIN_RELEVANCE, openMemory, type Memory, type RankingWeights } from '@zeromem/core';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { chooseEmbedder, describeEmbedderSpec, type EmbedderSpec } from './embedder-choice.ts';
import { readGoldQueries, readRun } from './gold-queries.ts';
import { metricsTable, scoreRun, type RunMetrics } from './metrics.ts';
import { Progress, count, seconds, type ProgressStream } from './progress.ts';
import { rankQueries, type RankResult } from './rank-queries.ts';
import { readRankingQueries } from './ranking-queries.ts';
import { replayMemories, type ReplayResult } from './replay.ts';
import { separation } from './separation.ts';

/** Options of {@link runEval}, as `zeromem eval` parsed them. */
export interface EvalOptions {
  memories: string;
  queries: string;
  out: string;
  /** Ids per query in the run file, at least (10 or more are always ranked). */
  k: number;
  embedder: EmbedderSpec;
  weights?: Partial<RankingWeights>;
  /** recall's `minRelevance` (default: recall's own, `DEFAULT_MIN_RELEVANCE`). 0 keeps every hit and tops short lists up as before. */
  minRelevance?: number;
  /** Rank and score only the first N queries. */
  limitQueries?: number;
  /** Exit 0 even when some memories could not be stored (they are still reported). */
  /** Exit 1 when a memory could not be stored (default: report it and go on). */
  strict?: boolean;
  stdout?: ProgressStream;
  stderr?: ProgressStream;
  /** Loads `@zeromem/embed-transformers` (tests pass a stand-in). */
  loadEmbedderModule?: () => Promise<unknown>;
}

/** Timings of the phases, in milliseconds. */
export interface EvalTiming {
  totalMs: number;
  storeMs: number;
  /** Waiting for embeddings after the last write (embedding runs alongside storing). */
  embedWaitMs: number;
  /** First use of each queried namespace's index (built from the store). */
  indexBuildMs: number;
  queryMs: number;
  recallMeanMs: number;
  recallP50Ms: number;
  recallP95Ms: number;
}

/** Failures printed in full on stderr; all of them go to the metrics file. */
const SHOWN_FAILURES = 50;

/**
 * `zeromem eval`: replay the memories into a fresh in-process zeromem (fake-indexeddb),
 * wait for every embedding, rank every query with `recall`, write the run file, then
 * score it against the gold ids (read from the queries file again, only now) and print
 * the table. Returns the exit code: 0, or 1 when some memory could not be stored.
 */
export async function runEval(options: EvalOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const progress = new Progress(options.stderr ?? process.stderr);
  const started = performance.now();
  const depth = Math.min(1000, Math.max(options.k, 10));

  const embedder = await chooseEmbedder(options.embedder, options.loadEmbedderModule);
  let backgroundError: Error | undefined;
  const memory = await openMemory({
    name: 'zeromem-eval',
    indexedDB: new IDBFactory(),
    IDBKeyRange,
    embedder,
    onBackgroundError: (err) => {
      backgroundError ??= err; // whenEmbedded() rejects with it too; kept to fail the run after queries
    },
  });
  try {
    // 1. Store.
    progress.log(`storing memories from ${options.memories} (embedder: ${describeEmbedderSpec(options.embedder)})`);
    const storeStart = performance.now();
    const replay = await replayMemories(memory, options.memories, {
      onProgress: ({ read, stored }) => {
        const elapsed = performance.now() - storeStart;
        progress.update(`stored ${count(stored)} of ${count(read)} memories read (${count((stored / elapsed) * 1000)}/s)`);
      },
    });
    const storeMs = performance.now() - storeStart;
    progress.log(`stored ${count(replay.stored)} memories in ${seconds(storeMs)} (${count((replay.stored / Math.max(storeMs, 1)) * 1000)}/s)`);
    reportFailures(replay, progress);

    // 2. Embed.
    const embedStart = performance.now();
    await waitForEmbeddings(memory, progress);
    const embedWaitMs = performance.now() - embedStart;
    if (embedder) progress.log(`embedded everything ${seconds(embedWaitMs)} after the last write`);
    if (backgroundError) throw backgroundError;

    // 3. Rank. The queries are read without answer, gold ids or category.
    const queries = await readRankingQueries(options.queries, options.limitQueries);
    const indexStart = performance.now();
    for (const ns of new Set(queries.map((query) => query.ns))) {
      // An empty query builds the namespace's index from the store and searches nothing.
      await memory.recall({ userId: ns }, '', { k: 1, trackAccess: false });
    }
    const indexBuildMs = performance.now() - indexStart;
    const queryStart = performance.now();
    const ranked = await rankQueries(queries, {
      memory,
      ids: replay.ids,
      namespaces: replay.namespaces,
      depth,
      weights: options.weights,
      minRelevance: options.minRelevance,
      onProgress: (done, total) => progress.update(`queries ${done}/${total}`),
    });
    const queryMs = performance.now() - queryStart;
    progress.log(`ranked ${queries.length} queries in ${seconds(queryMs)}`);
    await mkdir(dirname(options.out), { recursive: true });
    await writeFile(options.out, ranked.lines.map((line) => JSON.stringify(line)).join('\n') + (ranked.lines.length ? '\n' : ''));
    await writeFile(`${options.out}.relevance.jsonl`, ranked.relevance.map((line) => JSON.stringify(line)).join('\n') + (ranked.relevance.length ? '\n' : ''));

    // 4. Score: gold is read from the queries file only now, and the run from disk.
    const gold = await readGoldQueries(options.queries, options.limitQueries);
    const metrics = scoreRun(gold, await readRun(options.out));
    const sorted = [...ranked.latencies].sort((a, b) => a - b);
    const timing: EvalTiming = {
      totalMs: performance.now() - started,
      storeMs,
      embedWaitMs,
      indexBuildMs,
      queryMs,
      recallMeanMs: sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : 0,
      recallP50Ms: quantile(sorted, 0.5),
      recallP95Ms: quantile(sorted, 0.95),
    };
    stdout.write(report(options, depth, replay, ranked, metrics, timing));
    await writeFile(`${options.out}.metrics.json`, JSON.stringify(metricsFile(options, depth, replay, ranked, metrics, timing), null, 2) + '\n');
    progress.log(`wrote ${options.out} and ${options.out}.metrics.json`);

    if (replay.failures.length && options.strict) {
      progress.log(`exit code 1: ${replay.failures.length} memor${replay.failures.length === 1 ? 'y' : 'ies'} could not be stored (see above; --strict)`);
      return 1;
    }
    return 0;
  } finally {
    await memory.close();
  }
}

async function waitForEmbeddings(memory: Memory, progress: Progress): Promise<void> {
  const total = memory.pendingEmbeddings();
  if (total === 0) return;
  const start = performance.now();
  const timer = setInterval(() => {
    const done = total - memory.pendingEmbeddings();
    progress.update(`embedding: ${count(done)} of ${count(total)} (${count((done / (performance.now() - start)) * 1000)}/s)`);
  }, 1000);
  try {
    await memory.whenEmbedded(); // rejects with EMBEDDER_UNAVAILABLE when the embedder fails
  } catch (err) {
    throw new Error(`the embedder failed while embedding the memories (${count(memory.pendingEmbeddings())} left): ${(err as Error).message}`, { cause: err });
  } finally {
    clearInterval(timer);
  }
}

function reportFailures(replay: ReplayResult, progress: Progress): void {
  for (const { note, lines, count: n } of replay.notes) progress.log(`note: ${n} line(s): ${note} (e.g. line ${lines.join(', ')})`);
  if (replay.aliased) {
    progress.log(
      `note: ${replay.aliased} memories repeat the content of an earlier one in their namespace; core stored them once, ` +
        'and the run lists their ids right after the stored one (same text, same rank).',
    );
  }
  if (replay.repeated) progress.log(`note: ${replay.repeated} lines repeat an id with the same content; stored once.`);
  if (replay.ids.encodedCount) {
    progress.log(`note: ${replay.ids.encodedCount} ids are not valid zeromem ids; stored encoded (x:/h: prefix) and mapped back in the run file.`);
  }
  if (!replay.failures.length) return;
  progress.log(`ERROR: ${replay.failures.length} of ${count(replay.read)} memories could not be stored:`);
  for (const f of replay.failures.slice(0, SHOWN_FAILURES)) {
    progress.log(`  line ${f.line} (ns ${f.ns ?? '?'}, id ${f.id ?? '?'}): ${f.code} ${f.message}`);
  }
  if (replay.failures.length > SHOWN_FAILURES) progress.log(`  ... and ${replay.failures.length - SHOWN_FAILURES} more (all in the .metrics.json file)`);
}

function percent(part: number, whole: number): string {
  return `${whole ? ((part / whole) * 100).toFixed(1) : '0.0'}% (${part}/${whole})`;
}

function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function report(options: EvalOptions, depth: number, replay: ReplayResult, ranked: RankResult, metrics: RunMetrics, timing: EvalTiming): string {
  const weights = options.weights ? Object.entries(options.weights).map(([key, value]) => `${key}=${value}`).join(',') : 'default';
  const lines = [
    `## zeromem eval: ${options.memories}`,
    '',
    `embedder: ${describeEmbedderSpec(options.embedder)} · ranked ids per query: ${depth} · weights: ${weights} · minRelevance: ${options.minRelevance ?? `default (no hits when none reaches ${DEFAULT_MIN_RELEVANCE})`}`,
    `memories: ${count(replay.read)} read, ${count(replay.stored)} stored, ${replay.aliased} duplicates kept as aliases, ` +
      `${replay.repeated} repeated ids, ${replay.failures.length} not stored`,
    `queries: ${ranked.lines.length} ranked, ${metrics.overall.n} scored, ${metrics.withoutGold} without gold ids, ` +
      `${ranked.padded} topped up with newest memories, ${ranked.untimed} without a time (now = latest memory)`,
    '',
    metricsTable(metrics),
    '',
    `nothing relevant: ${percent(ranked.ownEmpty, ranked.lines.length)} of queries in their own namespace answered with no hits; ` +
      (ranked.foreign.asked
        ? `foreign queries (each asked in another namespace of the set): ${percent(ranked.foreign.empty, ranked.foreign.asked)} answered with no hits; ` +
          `best relevance own vs foreign: AUC ${separation(ranked.relevance)!.toFixed(3)}`
        : 'foreign queries: none (the set has one namespace)'),
    '',
    `time: total ${seconds(timing.totalMs)} · store ${seconds(timing.storeMs)} · embed wait ${seconds(timing.embedWaitMs)} · ` +
      `index build ${seconds(timing.indexBuildMs)} · recall mean ${timing.recallMeanMs.toFixed(2)} ms ` +
      `(p50 ${timing.recallP50Ms.toFixed(2)}, p95 ${timing.recallP95Ms.toFixed(2)})`,
    '',
  ];
  if (metrics.missingFromRun.length) lines.splice(5, 0, `WARNING: ${metrics.missingFromRun.length} scored queries have no run line`);
  return lines.join('\n');
}

function metricsFile(options: EvalOptions, depth: number, replay: ReplayResult, ranked: RankResult, metrics: RunMetrics, timing: EvalTiming) {
  return {
    memories: options.memories,
    queries: options.queries,
    run: options.out,
    k: options.k,
    depth,
    embedder: describeEmbedderSpec(options.embedder),
    weights: options.weights ?? null,
    limitQueries: options.limitQueries ?? null,
    counts: {
      memoriesRead: replay.read,
      stored: replay.stored,
      aliased: replay.aliased,
      repeatedIds: replay.repeated,
      encodedIds: replay.ids.encodedCount,
      notStored: replay.failures.length,
      queries: ranked.lines.length,
      scored: metrics.overall.n,
      withoutGold: metrics.withoutGold,
      toppedUp: ranked.padded,
      untimed: ranked.untimed,
      emptyNamespace: ranked.emptyNamespace.length,
      missingFromRun: metrics.missingFromRun.length,
      vectorModes: ranked.vectorModes,
      ownEmpty: ranked.ownEmpty,
      foreignAsked: ranked.foreign.asked,
      foreignEmpty: ranked.foreign.empty,
    },
    /** How well the best relevance tells own from foreign queries (see separation.ts); null without foreign queries. */
    separation: ranked.foreign.asked ? (separation(ranked.relevance) ?? null) : null,
    minRelevance: options.minRelevance ?? null,
    failures: replay.failures,
    notes: replay.notes,
    timing,
    metrics: { overall: metrics.overall, perCategory: metrics.perCategory, ...(metrics.factChanges ? { factChanges: metrics.factChanges } : {}) },
  };
}
