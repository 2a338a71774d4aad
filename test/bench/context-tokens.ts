/**
 * Tokens a budgeted context costs against resending the full history, on LongMemEval
 * (../shared/bench-data/longmemeval-s-sample: 119 questions, each with its own ~490-turn,
 * ~100k-token haystack).
 *
 *   npx tsx test/bench/context-tokens.ts                       # all queries, bundled embedder
 *   npx tsx test/bench/context-tokens.ts --limit-queries 10 --embedder none   # a quick dev run
 *
 * 1. Table: the memories are replayed into a fresh zeromem through the public API (the
 *    eval's replay: one namespace per haystack, every turn a long-term memory). For each
 *    query, `buildContext({ namespace, query, now, budget })` at budgets 500, 1,000 and
 *    2,000 tokens (long-term quota 100 items, so the budget binds; no truncation:
 *    a memory is in whole or not at all). Reported per query: the context's tokens
 *    (max of text and chat forms, o200k_base), the full history's tokens (the report's
 *    `fullHistoryTokens`: every memory of the namespace rendered as a context line), and
 *    the fraction of gold evidence ids inside the context. Gold ids are read from the
 *    queries file only after every context is built, for scoring.
 * 2. Plot: one haystack replayed turn by turn as an agent would live it: each data
 *    session is a zeromem session (`addTurn` for every turn, all marked durable, `end()`
 *    at the session's end, so past sessions become long-term memory); before every user
 *    turn the agent builds its context (budget 1,000, the user's turn as the query).
 *    Tokens per turn of that context and of the full history so far are drawn into
 *    docs/context-tokens.svg (log scale).
 *
 * Prints Markdown tables; writes test/bench/results/context-tokens.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openMemory, type Memory } from '@zeromem/core';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { chooseEmbedder, describeEmbedderSpec, parseEmbedderSpec } from '../../packages/cli/src/eval/embedder-choice.ts';
import { readGoldQueries } from '../../packages/cli/src/eval/gold-queries.ts';
import { shapeQuery } from '../../packages/cli/src/eval/query-shape.ts';
import { readRankingQueries, type RankingQuery } from '../../packages/cli/src/eval/ranking-queries.ts';
import { replayMemories } from '../../packages/cli/src/eval/replay.ts';
import { filterMemories, replayConversation, type TurnPoint } from './context-conversation.ts';
import { tokensSvg } from './context-plot.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DATA = join(ROOT, '..', 'shared', 'bench-data', 'longmemeval-s-sample');
const BUDGETS = [500, 1000, 2000];
const LONG_TERM_ITEMS = 100;

const { values: args } = parseArgs({
  options: {
    'limit-queries': { type: 'string' },
    embedder: { type: 'string', default: 'bundled' },
    data: { type: 'string', default: DATA },
    'no-plot': { type: 'boolean', default: false },
  },
});
const limit = args['limit-queries'] === undefined ? Number.POSITIVE_INFINITY : Number(args['limit-queries']);
const spec = parseEmbedderSpec(args.embedder!);
const memoriesFile = join(args.data!, 'memories.jsonl.gz');
const queriesFile = join(args.data!, 'queries.jsonl');

interface QueryRow {
  qid: string;
  category: string;
  fullHistory: number;
  perBudget: Array<{ budget: number; tokens: number; items: number; gold: number | null }>;
}

const started = performance.now();
const queries = await readRankingQueries(queriesFile, limit);
const embedder = await chooseEmbedder(spec);
const memory = await openMemory({ name: 'context-bench', indexedDB: new IDBFactory(), IDBKeyRange, embedder });
const temp = await mkdtemp(join(tmpdir(), 'zeromem-context-'));
try {
  // Dev runs store only the haystacks of the queries they ask.
  const file = Number.isFinite(limit) ? await filterMemories(memoriesFile, new Set(queries.map((q) => q.ns)), join(temp, 'memories.jsonl')) : memoriesFile;
  log(`replaying ${file} (embedder: ${describeEmbedderSpec(spec)})`);
  const replay = await replayMemories(memory, file);
  log(`stored ${replay.stored} memories; embedding...`);
  await memory.whenEmbedded();
  log(`building contexts for ${queries.length} queries at budgets ${BUDGETS.join(', ')}`);
  const built = await buildAll(memory, queries, replay.namespaces);

  // Scoring: gold ids are read only now.
  const gold = new Map((await readGoldQueries(queriesFile, limit)).map((g) => [g.qid, g]));
  const rows: QueryRow[] = built.map((b) => {
    const g = gold.get(b.qid)!;
    return {
      qid: b.qid,
      category: g.category,
      fullHistory: b.fullHistory,
      perBudget: b.perBudget.map((p) => {
        const inside = new Set(replay.ids.toDataRanking(b.ns, p.ids));
        return { budget: p.budget, tokens: p.tokens, items: p.ids.length, gold: g.gold.length ? g.gold.filter((id) => inside.has(id)).length / g.gold.length : null };
      }),
    };
  });
  const summary = summarize(rows);
  console.log(table(summary, rows.length, describeEmbedderSpec(spec)));
  console.log(categoryTable(rows, 1000));

  let plot: TurnPoint[] | undefined;
  if (!args['no-plot']) {
    const ns = queries[0]!.ns;
    log(`plot: replaying haystack ${ns} turn by turn`);
    plot = await replayConversation(memoriesFile, ns, 1000, embedder);
    const svg = tokensSvg(plot, `LongMemEval haystack ${ns}: prompt tokens per user turn`);
    writeFileSync(join(ROOT, 'docs', 'context-tokens.svg'), svg);
    const last = plot.at(-1)!;
    console.log(`\nplot: ${plot.length} user turns; at the last one the full history is ${last.fullHistory} tokens, the context ${last.context} (${(last.fullHistory / last.context).toFixed(0)}x); docs/context-tokens.svg`);
  }
  const out = join(ROOT, 'test', 'bench', 'results', 'context-tokens.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        embedder: describeEmbedderSpec(spec),
        queries: rows.length,
        budgets: BUDGETS,
        longTermMaxItems: LONG_TERM_ITEMS,
        tokenizer: (await memory.tokenizer()).id,
        summary,
        perCategory1000: categories(rows, 1000),
        rows,
        plot: plot ? { ns: queries[0]!.ns, points: plot } : null,
        seconds: (performance.now() - started) / 1000,
      },
      null,
      1,
    ) + '\n',
  );
  log(`wrote ${out} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
} finally {
  await memory.close();
  await (embedder as { dispose?: () => Promise<void> } | undefined)?.dispose?.();
  await rm(temp, { recursive: true, force: true });
}

async function buildAll(memory: Memory, queries: RankingQuery[], namespaces: ReadonlyMap<string, { latest: number | undefined }>) {
  const out = [];
  for (const [i, q] of queries.entries()) {
    const now = q.ts ?? namespaces.get(q.ns)?.latest;
    const perBudget = [];
    let fullHistory = 0;
    for (const budget of BUDGETS) {
      const { report } = await memory.buildContext({
        namespace: { userId: q.ns },
        query: shapeQuery(q.query),
        budget,
        layers: { long_term: { maxItems: LONG_TERM_ITEMS } },
        trackAccess: false,
        ...(now === undefined ? {} : { now }),
      });
      fullHistory = report.fullHistoryTokens!;
      perBudget.push({ budget, tokens: report.tokens, ids: report.included.filter((item) => item.layer !== 'system').map((item) => item.id) });
    }
    out.push({ qid: q.qid, ns: q.ns, fullHistory, perBudget });
    if ((i + 1) % 10 === 0) log(`  ${i + 1}/${queries.length}`);
  }
  return out;
}

function summarize(rows: QueryRow[]) {
  const fullMean = mean(rows.map((r) => r.fullHistory));
  return BUDGETS.map((budget) => {
    const at = rows.map((r) => ({ full: r.fullHistory, ...r.perBudget.find((p) => p.budget === budget)! }));
    const scored = at.filter((a) => a.gold !== null);
    const tokens = mean(at.map((a) => a.tokens));
    return {
      budget,
      contextTokensMean: tokens,
      contextTokensMax: Math.max(...at.map((a) => a.tokens)),
      fullHistoryMean: fullMean,
      ratioOfMeans: fullMean / tokens,
      ratioMedian: median(at.map((a) => a.full / a.tokens)),
      itemsMean: mean(at.map((a) => a.items)),
      goldIncluded: mean(scored.map((a) => a.gold!)),
      allGoldIncluded: scored.filter((a) => a.gold === 1).length / scored.length,
      scored: scored.length,
    };
  });
}

function categories(rows: QueryRow[], budget: number) {
  const byCategory = new Map<string, number[]>();
  for (const r of rows) {
    const g = r.perBudget.find((p) => p.budget === budget)!.gold;
    if (g === null) continue;
    byCategory.set(r.category, [...(byCategory.get(r.category) ?? []), g]);
  }
  return [...byCategory].sort().map(([category, values]) => ({ category, n: values.length, goldIncluded: mean(values) }));
}

function table(summary: ReturnType<typeof summarize>, n: number, embedderName: string): string {
  const lines = [
    `## buildContext vs full history: longmemeval-s-sample, ${n} queries (embedder: ${embedderName})`,
    '',
    '| budget | context tokens (mean / max) | full history (mean) | fewer tokens (ratio of means / median ratio) | items (mean) | gold evidence inside | all gold inside |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const s of summary) {
    lines.push(
      `| ${s.budget} | ${s.contextTokensMean.toFixed(0)} / ${s.contextTokensMax} | ${s.fullHistoryMean.toFixed(0)} | ${s.ratioOfMeans.toFixed(0)}x / ${s.ratioMedian.toFixed(0)}x | ${s.itemsMean.toFixed(1)} | ${s.goldIncluded.toFixed(3)} | ${s.allGoldIncluded.toFixed(3)} |`,
    );
  }
  return lines.join('\n');
}

function categoryTable(rows: QueryRow[], budget: number): string {
  return [`\nGold evidence inside the ${budget}-token context, per category:`, '', '| category | n | gold inside |', '|---|---|---|', ...categories(rows, budget).map((c) => `| ${c.category} | ${c.n} | ${c.goldIncluded.toFixed(3)} |`)].join('\n');
}

function mean(values: number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)]! : 0;
}

function log(text: string): void {
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0)} s] ${text}\n`);
}
