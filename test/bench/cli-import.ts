/**
 * `zeromem import` throughput: 10,000 records from JSONL and from CSV, through the built
 * CLI (plain node, a fresh process and a fresh store per run, as a user runs it), next to
 * the same 10,000 records given to `rememberMany` in one call by a plain node script on
 * the same durable store (the SDK without the job: no parsing, no checkpoint, no report,
 * one transaction).
 *
 *   npx -y pnpm@10 build && npx tsx test/bench/cli-import.ts   # writes test/bench/results/cli-import.json
 *
 * Wall time from spawn to exit (process start and store open included); records/s is
 * 10,000 over it. Runs are interleaved; the table shows the median and every run.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mulberry32 as prng } from '../kit/mulberry32.ts';
import { median } from './stats.ts';

const RECORDS = 10_000;
const RUNS = 3;
const BIN = fileURLToPath(new URL('../../packages/cli/dist/bin.js', import.meta.url));
const CORE = pathToFileURL(fileURLToPath(new URL('../../packages/core/dist/index.node.js', import.meta.url))).href;
const WORDS = ['charging', 'port', 'battery', 'invoice', 'refund', 'callback', 'wednesday', 'technician', 'screen', 'cable', 'warranty', 'delivery', 'order', 'loose', 'replaced', 'customer', 'phone', 'email', 'contract', 'upgrade'];

const work = mkdtempSync(join(tmpdir(), 'zeromem-bench-import-'));
const random = prng(42);
const items = Array.from({ length: RECORDS }, (_, i) => ({
  namespace: { userId: `u${i % 10}` },
  content: `${Array.from({ length: 12 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ')} #${i}`,
  tags: [WORDS[i % WORDS.length]!],
  metadata: { n: String(i) },
}));
const jsonl = join(work, 'records.jsonl');
const csv = join(work, 'records.csv');
const itemsFile = join(work, 'items.json');
writeFileSync(jsonl, items.map((item) => JSON.stringify(item)).join('\n') + '\n');
writeFileSync(csv, 'content,userId,tags,metadata.n\n' + items.map((item) => `${item.content},${item.namespace.userId},${item.tags[0]},${item.metadata.n}`).join('\n') + '\n');
writeFileSync(itemsFile, JSON.stringify(items));
const sdkScript = `import { readFileSync } from 'node:fs';
import { openMemory } from ${JSON.stringify(CORE)};
const memory = await openMemory({ name: 'zeromem', directory: process.env.ZEROMEM_HOME });
const { results } = await memory.rememberMany(JSON.parse(readFileSync(${JSON.stringify(itemsFile)}, 'utf8')));
await memory.close();
console.log(JSON.stringify({ stored: results.length }));`;

function timedProcess(args: string[], home: string): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { env: { ...process.env, ZEROMEM_HOME: home }, stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve({ ms: performance.now() - t0, stdout }) : reject(new Error(`${args.join(' ')} exited ${code}: ${stdout}`))));
  });
}

const measures: Record<string, (home: string) => string[]> = {
  'zeromem import records.jsonl (batch 500, default)': () => [BIN, 'import', jsonl],
  'zeromem import records.csv (batch 500, default)': () => [BIN, 'import', csv],
  'zeromem import records.jsonl --batch 5000': () => [BIN, 'import', jsonl, '--batch', '5000'],
  'SDK: one rememberMany of the 10,000 (plain node script)': () => ['--input-type=module', '-e', sdkScript],
};

const perRun: Record<string, number[]> = {};
const load = [loadavg()[0]!];
for (let run = 0; run < RUNS; run++) {
  for (const [name, args] of Object.entries(measures)) {
    const home = join(work, `home-${run}-${Object.keys(perRun).length}-${name.length}`);
    const { ms, stdout } = await timedProcess(args(home), home);
    const summary = JSON.parse(stdout.trim().split('\n').pop()!);
    if ((summary.stored ?? 0) !== RECORDS) throw new Error(`${name}: stored ${summary.stored}, expected ${RECORDS}`);
    (perRun[name] ??= []).push(Math.round(RECORDS / (ms / 1000)));
    rmSync(home, { recursive: true, force: true });
    console.error(`run ${run + 1} ${name}: ${Math.round(ms)} ms`);
  }
}
load.push(loadavg()[0]!);
rmSync(work, { recursive: true, force: true });

const sdk = median(perRun['SDK: one rememberMany of the 10,000 (plain node script)']!);
const rows = Object.entries(perRun).map(([name, values]) => ({ name, median: median(values), runs: values, ofSdk: Math.round((median(values) / sdk) * 100) / 100 }));
const result = { records: RECORDS, runs: RUNS, loadAverage: load.map((l) => Math.round(l * 10) / 10), rows };
writeFileSync(fileURLToPath(new URL('./results/cli-import.json', import.meta.url)), JSON.stringify(result, null, 2) + '\n');
console.log(`| measure (records/s, wall time incl. process start) | median | runs | / SDK |\n|---|---|---|---|`);
for (const row of rows) console.log(`| ${row.name} | ${row.median} | ${row.runs.join(' / ')} | ${row.ofSdk} |`);
console.log(`\nload average at start/end: ${result.loadAverage.join(' / ')}`);
