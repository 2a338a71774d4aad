/**
 * The memory service's request latency next to the same verbs called in-process: remember
 * (one memory per call) and recall (k = 10), in a namespace of 10,000 memories, on the
 * durable Node store, without an embedder (BM25) and with the bundled model (hybrid, the
 * service's default).
 *
 *   npx tsx --conditions=development test/bench/service-latency.ts   # writes test/bench/results/service-latency.json
 *
 * In-process: openMemory({ name, directory }) in this process (SQLite file in a temporary
 * directory). Service: the zeromem-server process (its source under node --import tsx, the
 * built packages behind it) with --dir on its own temporary directory, called over HTTP
 * on 127.0.0.1 with fetch (keep-alive), bearer token, JSON. With the embedder, timing
 * starts once the fill is embedded (pendingEmbeddings 0). Several runs, interleaved; the
 * table shows medians of the per-run percentiles.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTransformersEmbedder } from '../../packages/embed-transformers/src/index.ts';
import { openMemory } from '../../packages/core/src/index.node.ts';
import { mulberry32 as prng } from '../kit/mulberry32.ts';
import { median, summarize } from './stats.ts';

const RECORDS = 10_000;
const WRITES = 300;
const QUERIES = 300;
const RUNS = 3;
const TOKEN = 'bench-token-0123456789abcdef';
const ns = { userId: 'bench', agentId: 'after-sales' };
const WORDS = ['charging', 'port', 'battery', 'invoice', 'refund', 'callback', 'wednesday', 'technician', 'screen', 'cable', 'warranty', 'delivery', 'order', 'loose', 'replaced', 'customer', 'phone', 'email', 'contract', 'upgrade', '充电口', '接触不良', '工单', '回访', '发票', '退款', '电池', '屏幕'];

function texts(seed: number, n: number): string[] {
  const random = prng(seed);
  return Array.from({ length: n }, (_, i) => `${Array.from({ length: 10 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ')} #${seed}-${i}`);
}
const queries = (seed: number) => texts(seed, QUERIES).map((t) => t.split(' ').slice(0, 3).join(' '));

async function timed(n: number, call: (i: number) => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await call(i);
    samples.push(performance.now() - t0);
  }
  const s = summarize(samples);
  return { p50: s.p50, p95: s.p95 };
}

type Embedding = 'none' | 'bundled';

/** Polls until the fill is embedded (recall reports no pending embeddings). */
async function embedded(pending: () => Promise<number>): Promise<void> {
  while ((await pending()) > 0) await new Promise((resolve) => setTimeout(resolve, 200));
}

async function inProcess(run: number, embedding: Embedding) {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-bench-'));
  const embedder = embedding === 'bundled' ? await createTransformersEmbedder() : undefined;
  const memory = await openMemory({ name: `bench-${run}`, directory: dir, ...(embedder ? { embedder } : {}) });
  const fill = texts(1000 + run, RECORDS);
  for (let i = 0; i < RECORDS; i += 1000) await memory.rememberMany(fill.slice(i, i + 1000).map((content) => ({ namespace: ns, content })));
  await embedded(async () => (await memory.recall(ns, 'warm up the index')).pendingEmbeddings);
  const writes = texts(2000 + run, WRITES);
  const remember = await timed(WRITES, (i) => memory.remember({ namespace: ns, content: writes[i]! }));
  const q = queries(3000 + run);
  const recall = await timed(QUERIES, (i) => memory.recall(ns, q[i]!, { k: 10 }));
  await memory.close();
  rmSync(dir, { recursive: true, force: true });
  return { remember, recall };
}

async function service(run: number, embedding: Embedding) {
  const bin = fileURLToPath(new URL('../../packages/server/src/bin.ts', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-bench-service-'));
  const args = ['--port', '0', '--name', `bench-${run}`, '--dir', dir, '--embedder', embedding, '--max-body-bytes', String(8 * 1024 * 1024)];
  const child = spawn(process.execPath, ['--import', 'tsx', bin, ...args], {
    env: { ...process.env, ZEROMEM_SERVE_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  while (!/listening on (\S+)/.test(out)) await new Promise((resolve) => setTimeout(resolve, 25));
  const url = /listening on (\S+)/.exec(out)![1]!;
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  try {
    const fill = texts(1000 + run, RECORDS);
    for (let i = 0; i < RECORDS; i += 1000) await post('/v1/memories', { memories: fill.slice(i, i + 1000).map((content) => ({ namespace: ns, content })) });
    await embedded(async () => ((await post('/v1/recall', { namespace: ns, query: 'warm up the index' })) as { pendingEmbeddings: number }).pendingEmbeddings);
    const writes = texts(2000 + run, WRITES);
    const remember = await timed(WRITES, (i) => post('/v1/memories', { namespace: ns, content: writes[i]! }));
    const q = queries(3000 + run);
    const recall = await timed(QUERIES, (i) => post('/v1/recall', { namespace: ns, query: q[i]!, k: 10 }));
    return { remember, recall };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('close', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

type Run = Awaited<ReturnType<typeof inProcess>>;
const SIDES = ['inProcess', 'service'] as const;
const EMBEDDINGS: Embedding[] = ['none', 'bundled'];
const runs: Record<string, Run[]> = {};
for (let run = 0; run < RUNS; run++) {
  for (const embedding of EMBEDDINGS) {
    for (const side of SIDES) {
      const key = `${side}/${embedding}`;
      (runs[key] ??= []).push(side === 'inProcess' ? await inProcess(run, embedding) : await service(run, embedding));
      console.log(`run ${run + 1}/${RUNS} ${key}`, JSON.stringify(runs[key]!.at(-1)));
    }
  }
}
const med = (key: string, verb: 'remember' | 'recall', p: 'p50' | 'p95') => median(runs[key]!.map((r) => r[verb][p]));
console.log(`\n${RECORDS.toLocaleString('en')} memories in the namespace, durable store; medians of ${RUNS} runs (${WRITES} remembers, ${QUERIES} recalls per run)`);
console.log('| verb | embedder | in-process p50 | p95 | service p50 | p95 | p50 ratio |\n| --- | --- | --- | --- | --- | --- | --- |');
const table: Record<string, unknown> = {};
for (const verb of ['remember', 'recall'] as const) {
  for (const embedding of EMBEDDINGS) {
    const row = { inProcessP50: med(`inProcess/${embedding}`, verb, 'p50'), inProcessP95: med(`inProcess/${embedding}`, verb, 'p95'), serviceP50: med(`service/${embedding}`, verb, 'p50'), serviceP95: med(`service/${embedding}`, verb, 'p95') };
    table[`${verb}/${embedding}`] = row;
    console.log(`| ${verb} | ${embedding} | ${row.inProcessP50} ms | ${row.inProcessP95} ms | ${row.serviceP50} ms | ${row.serviceP95} ms | ${Math.round((row.serviceP50 / row.inProcessP50) * 100) / 100} |`);
  }
}
writeFileSync(new URL('./results/service-latency.json', import.meta.url), `${JSON.stringify({ records: RECORDS, store: 'durable (SQLite file)', runs, medians: table }, null, 2)}\n`);
