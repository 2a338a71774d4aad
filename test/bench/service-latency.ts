/**
 * The memory service's request latency next to the same verbs called in-process: remember
 * (one memory per call) and recall (k = 10), in a namespace of 10,000 memories.
 *
 *   npx tsx test/bench/service-latency.ts        # writes test/bench/results/service-latency.json
 *
 * In-process: openMemory on fake-indexeddb in this process. Service: the zeromem-server
 * process (its source under node --import tsx; same store engine), called over HTTP on
 * 127.0.0.1 with fetch (keep-alive), bearer token, JSON. Several runs, interleaved; the
 * table shows medians of the per-run percentiles.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { openMemory } from '../../packages/core/src/index.ts';
import { prng } from './prng.ts';
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

async function inProcess(run: number) {
  const memory = await openMemory({ indexedDB: new IDBFactory(), IDBKeyRange, name: `bench-${run}` });
  const fill = texts(1000 + run, RECORDS);
  for (let i = 0; i < RECORDS; i += 1000) await memory.rememberMany(fill.slice(i, i + 1000).map((content) => ({ namespace: ns, content })));
  await memory.recall(ns, 'warm up the index');
  const writes = texts(2000 + run, WRITES);
  const remember = await timed(WRITES, (i) => memory.remember({ namespace: ns, content: writes[i]! }));
  const q = queries(3000 + run);
  const recall = await timed(QUERIES, (i) => memory.recall(ns, q[i]!, { k: 10 }));
  await memory.close();
  return { remember, recall };
}

async function service(run: number) {
  const bin = fileURLToPath(new URL('../../packages/server/src/bin.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', bin, '--port', '0', '--name', `bench-${run}`, '--max-body-bytes', String(8 * 1024 * 1024)], {
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
    await post('/v1/recall', { namespace: ns, query: 'warm up the index' });
    const writes = texts(2000 + run, WRITES);
    const remember = await timed(WRITES, (i) => post('/v1/memories', { namespace: ns, content: writes[i]! }));
    const q = queries(3000 + run);
    const recall = await timed(QUERIES, (i) => post('/v1/recall', { namespace: ns, query: q[i]!, k: 10 }));
    return { remember, recall };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('close', resolve));
  }
}

const runs: { inProcess: Array<Awaited<ReturnType<typeof inProcess>>>; service: Array<Awaited<ReturnType<typeof service>>> } = { inProcess: [], service: [] };
for (let run = 0; run < RUNS; run++) {
  runs.inProcess.push(await inProcess(run));
  runs.service.push(await service(run));
  console.log(`run ${run + 1}/${RUNS}`, JSON.stringify({ inProcess: runs.inProcess.at(-1), service: runs.service.at(-1) }));
}
const med = (which: 'inProcess' | 'service', verb: 'remember' | 'recall', p: 'p50' | 'p95') => median(runs[which].map((r) => r[verb][p]));
console.log(`\n${RECORDS.toLocaleString('en')} memories in the namespace; medians of ${RUNS} runs (${WRITES} remembers, ${QUERIES} recalls per run)`);
console.log('| verb | in-process p50 | p95 | service p50 | p95 | p50 ratio |\n| --- | --- | --- | --- | --- | --- |');
const table: Record<string, unknown> = {};
for (const verb of ['remember', 'recall'] as const) {
  const row = { inProcessP50: med('inProcess', verb, 'p50'), inProcessP95: med('inProcess', verb, 'p95'), serviceP50: med('service', verb, 'p50'), serviceP95: med('service', verb, 'p95') };
  table[verb] = row;
  console.log(`| ${verb} | ${row.inProcessP50} ms | ${row.inProcessP95} ms | ${row.serviceP50} ms | ${row.serviceP95} ms | ${Math.round((row.serviceP50 / row.inProcessP50) * 100) / 100} |`);
}
writeFileSync(new URL('./results/service-latency.json', import.meta.url), `${JSON.stringify({ records: RECORDS, runs, medians: table }, null, 2)}\n`);
