/**
 * Abstention study (issue 28, foreign queries): the eval's replay and queries, but every
 * query is asked with no floor (`minRelevance: 0`, top 10) in its own namespace and in its
 * foreign one (the eval's `foreignNamespace`), and every hit's whole evidence is written out
 * with the query's words as that namespace weighs them, so relevance variants can be scored
 * offline (test/bench/abstain-variants.ts) without a run per variant. Not part of the product.
 *
 *   node --conditions=development --import tsx test/bench/abstain-study.ts \
 *     <memories.jsonl[.gz]> <queries.jsonl> <out.jsonl> [bundled|minilm|none]
 */
import { writeFileSync } from 'node:fs';
import { openMemory, type RecallHit } from '@zeromem/core';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { chooseEmbedder, parseEmbedderSpec } from '../../packages/cli/src/eval/embedder-choice.ts';
import { readGoldQueries } from '../../packages/cli/src/eval/gold-queries.ts';
import { foreignNamespace } from '../../packages/cli/src/eval/rank-queries.ts';
import { readRankingQueries } from '../../packages/cli/src/eval/ranking-queries.ts';
import { shapeQuery } from '../../packages/cli/src/eval/query-shape.ts';
import { replayMemories } from '../../packages/cli/src/eval/replay.ts';
import { searchText } from '../../packages/core/src/search/namespace-index.ts';
import { tokenize } from '../../packages/core/src/search/tokenize.ts';
import { SUBJECT_TOKENS } from '../../packages/core/src/rank/subject-words.ts';

const [memoriesFile, queriesFile, out, embedderArg = 'bundled'] = process.argv.slice(2);
if (!memoriesFile || !queriesFile || !out) throw new Error('usage: abstain-study.ts <memories> <queries> <out> [bundled|minilm|none]');

const embedder = await chooseEmbedder(parseEmbedderSpec(embedderArg));
const memory = await openMemory({ name: 'abstain-study', indexedDB: new IDBFactory(), IDBKeyRange, embedder });
const replay = await replayMemories(memory, memoriesFile);
while (memory.pendingEmbeddings() > 0) await new Promise((resolve) => setTimeout(resolve, 500));
await memory.whenEmbedded?.();
const queries = await readRankingQueries(queriesFile);
const gold = new Map((await readGoldQueries(queriesFile)).map((q) => [q.qid, new Set(q.gold)]));
const filled = [...replay.namespaces].filter(([, info]) => info.records > 0).map(([ns]) => ns).sort();

const frequencies = new Map<string, { df: Map<string, number>; size: number }>();
/** Document frequency of every token in a namespace (its live memories, as the index reads them). */
async function documentFrequencies(ns: string): Promise<{ df: Map<string, number>; size: number }> {
  let known = frequencies.get(ns);
  if (known) return known;
  known = { df: new Map(), size: 0 };
  let cursor: string | undefined;
  do {
    const page = await memory.list({ userId: ns }, { limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const record of page.items) {
      known.size++;
      for (const token of new Set(tokenize(searchText(record)))) known.df.set(token, (known.df.get(token) ?? 0) + 1);
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  frequencies.set(ns, known);
  return known;
}

/** The query's lexical text as recall reads it (a conversation: all turns, the latest user turn again). */
function lexicalText(shaped: ReturnType<typeof shapeQuery>): string {
  if (typeof shaped === 'string') return shaped;
  const all = shaped.map((turn) => turn.content).join('\n');
  const lastUser = [...shaped].reverse().find((turn) => turn.role === 'user')?.content;
  return lastUser ? `${all}\n${lastUser}` : all;
}

async function ask(ns: string, shaped: ReturnType<typeof shapeQuery>, text: string, now: number | undefined, goldIds: Set<string> | undefined) {
  const recalled = await memory.recall({ userId: ns }, shaped, { k: 10, trackAccess: false, minRelevance: 0, ...(now === undefined ? {} : { now }) });
  const { df, size } = await documentFrequencies(ns);
  // Each distinct query token: [count in the query, idf in this namespace, document frequency] (absent: the idf of df 0).
  const words: Record<string, [number, number, number]> = {};
  const counts = new Map<string, number>();
  for (const token of tokenize(text)) if (!SUBJECT_TOKENS.has(token)) counts.set(token, (counts.get(token) ?? 0) + 1);
  const idf = (d: number) => Math.log(1 + (size - d + 0.5) / (d + 0.5));
  const absent = idf(0);
  for (const [token, n] of counts) words[token] = [n, idf(df.get(token) ?? 0), df.get(token) ?? 0];
  const hits = recalled.hits.map((hit: RecallHit) => {
    const { lexical, semantic, agreement } = hit.explain.evidence;
    const dataIds = replay.ids.toDataRanking(ns, [hit.id]);
    const own = new Set(tokenize(searchText(hit.record)));
    return {
      gold: goldIds ? dataIds.filter((id) => goldIds.has(id)).length : 0,
      rel: hit.relevance,
      matched: lexical?.matched ?? 0,
      possible: lexical?.possible ?? 0,
      cos: semantic?.cosine ?? null,
      z: semantic?.z ?? null,
      mean: semantic?.mean ?? null,
      sd: semantic?.sd ?? null,
      n: semantic?.searched ?? null,
      sem: semantic?.share ?? 0,
      above: semantic?.above ?? null,
      agreement,
      words: [...counts.keys()].filter((token) => own.has(token)),
      len: hit.record.content.length,
      text: hit.record.content.slice(0, 240),
    };
  });
  return { ns, absent, words, hits };
}

const lines: string[] = [];
let done = 0;
for (const query of queries) {
  const shaped = shapeQuery(query.query);
  const text = lexicalText(shaped);
  const now = query.ts ?? replay.namespaces.get(query.ns)?.latest;
  const own = await ask(query.ns, shaped, text, now, gold.get(query.qid));
  const elsewhere = foreignNamespace(query.ns, filled);
  const foreign = elsewhere === undefined ? null : await ask(elsewhere, shaped, text, now, undefined);
  lines.push(JSON.stringify({ qid: query.qid, conversation: typeof shaped !== 'string', query: query.query.slice(-400), gold: [...(gold.get(query.qid) ?? [])], own, foreign }));
  if (++done % 100 === 0) process.stderr.write(`queries ${done}/${queries.length}\n`);
}
writeFileSync(out, lines.join('\n') + '\n');
await memory.close();
process.stderr.write(`wrote ${out}\n`);
