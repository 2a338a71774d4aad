/**
 * `zeromem-mcp` from spawn to its first search answered, and its resident memory then: the
 * built bin (packages/mcp/dist/bin.js) over stdio with the MCP SDK's own client (connect,
 * `tools/list`, one `search_memories` call), on an empty store and on a store of 20,000
 * English memories with their vectors (the static English model), a base build and this
 * branch's taking turns in the same run.
 *
 *   npx -y pnpm@10 build    # or: npx tsc -b packages/mcp/tsconfig.build.json
 *   # a base build: git worktree add --detach /tmp/base <commit> && (cd /tmp/base && npx -y pnpm@10 install --frozen-lockfile && npx tsc -b packages/mcp/tsconfig.build.json)
 *   BENCH_BASE=/tmp/base npx tsx --conditions=development test/bench/mcp-first-search.ts
 *
 * BENCH_GAP_MS (default 0) is a wait between `tools/list` and the search, as when a user asks
 * a while after the client started the server: `searchCallMs` is then the search call alone.
 * BENCH_RUNS (default 5) rounds; BENCH_EMBEDDER (default `bundled`) is the `--embedder` of
 * every server and of the store's vectors. The 20k store is written once to
 * BENCH_STORE (default /tmp/zeromem-mcp-bench-20k) with this checkout's core and embedder and
 * reused; every server opens that same file (a warm-up start of each build comes first). An
 * empty store is a new directory each start. RSS is VmRSS of the server process after the
 * answer; `closeMs` is the client's close (stdin ended) until the server has exited (the SDK
 * sends SIGTERM after 2 s). After the rounds, three servers of each build run at once on
 * the 20k store (as three MCP clients would start them), each answers one search, and
 * their VmRSS and Pss (/proc/<pid>/smaps_rollup: shared pages divided among the sharers)
 * are summed. BENCH_NODE_ARGS are put before the bin (`--cpu-prof --cpu-prof-dir=/tmp/prof` for a profile). Writes test/bench/results/mcp-first-search.json.
 *
 * `cpuMs` is the server's own CPU time (user + system, /proc/<pid>/stat) when the search is
 * answered: on a loaded machine it moves far less than the wall time. `anonMb` / `fileMb`
 * split VmRSS into the process's own pages and file-backed ones (the node binary, shared
 * by every node process).
 *
 * BENCH_PEER: the MCP reference memory server's entry, installed outside the repository
 * (docs/benchmarks/2026-12-06-s12-mcplean.md):
 *   mkdir /tmp/peers-mcp && cd /tmp/peers-mcp && npm init -y && npm i @modelcontextprotocol/server-memory@2026.8.31
 *   BENCH_PEER=/tmp/peers-mcp/node_modules/@modelcontextprotocol/server-memory/dist/index.js
 * It runs in the same rounds as `peer`: its empty store is a new file, its 20k store the same
 * 20,000 texts as entities of one observation each (MEMORY_FILE_PATH), its search `search_nodes`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openMemory } from '@zeromem/core';
import { createEmbedderFromChoice, parseEmbedderChoice } from '@zeromem/embed-transformers';
import { mulberry32 as prng } from '../kit/mulberry32.ts';
import { SAMPLE_WORDS } from './sample-words.ts';
import { median } from './stats.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const EMBEDDER = process.env.BENCH_EMBEDDER ?? 'bundled';
const STORE = process.env.BENCH_STORE ?? join(tmpdir(), 'zeromem-mcp-bench-20k');
const STORE_SIZE = 20_000;
const USER = 'bench';
/** BENCH_BASE_STORE: the base's own copy of the 20k store (a base whose index snapshot format differs cannot read the branch's). */
const storeOf = (name: string): string => (name === 'base' && process.env.BENCH_BASE_STORE) || STORE;
const builds: Record<string, string> = { branch: fileURLToPath(new URL('../../packages/mcp/dist/bin.js', import.meta.url)) };
if (process.env.BENCH_BASE) builds.base = join(process.env.BENCH_BASE, 'packages/mcp/dist/bin.js');
if (process.env.BENCH_PEER) builds.peer = process.env.BENCH_PEER;
const PEER_STORE = join(STORE, 'peer-memory.jsonl');
for (const bin of Object.values(builds)) if (!existsSync(bin)) throw new Error(`${bin} is missing: build it first`);

const WORDS = SAMPLE_WORDS;

/** The 20k store's texts, the same every run. */
function storeContents(): string[] {
  const random = prng(20_000);
  return Array.from({ length: STORE_SIZE }, (_, i) => {
    const words = Array.from({ length: 8 + Math.floor(random() * 10) }, () => WORDS[Math.floor(random() * WORDS.length)]!);
    return `#${i} ${words.join(' ')}`;
  });
}

/** The 20k store, written once (rememberMany in batches, every vector stored, the index snapshot written at close), and the reference server's file of the same texts. */
async function prepareStore(): Promise<void> {
  if (!existsSync(join(STORE, 'done'))) {
    rmSync(STORE, { recursive: true, force: true });
    const contents = storeContents();
    const embedder = await createEmbedderFromChoice(parseEmbedderChoice(EMBEDDER));
    const memory = await openMemory({ name: 'zeromem', directory: STORE, actor: 'bench', ...(embedder ? { embedder } : {}) });
    for (let i = 0; i < STORE_SIZE; i += 1000) await memory.rememberMany(contents.slice(i, i + 1000).map((content) => ({ namespace: { userId: USER }, content })));
    await memory.whenEmbedded();
    await memory.recall({ userId: USER }, 'warm the index');
    await memory.close();
    await embedder?.dispose();
    writeFileSync(join(STORE, 'done'), '');
  }
  if (builds.peer && !existsSync(PEER_STORE)) {
    const lines = storeContents().map((content, i) => JSON.stringify({ type: 'entity', name: `memory-${i}`, entityType: 'memory', observations: [content] }));
    writeFileSync(PEER_STORE, `${lines.join('\n')}\n`);
  }
}

interface Start {
  listMs: number;
  searchMs: number;
  cpuMs: number;
  rssMb: number;
  anonMb: number;
  fileMb: number;
  closeMs: number;
  searchCallMs: number;
}

/** A process's CPU time so far (utime + stime of /proc/<pid>/stat), in ms. */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Math.round(((Number(fields[11]) + Number(fields[12])) * 1000) / 100); // clock ticks of 1/100 s (USER_HZ)
}

const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 0);

/** A kB figure of /proc/<pid>/<file>, in MB. */
function procMb(pid: number, file: string, field: string): number {
  return Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/${file}`, 'utf8'))![1]) / 1024);
}

/** A server started and connected over stdio (the reference server: its memory file in `dir`). */
async function connect(bin: string, dir: string): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const peer = bin === builds.peer;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: peer ? [...nodeArgs, bin] : [...nodeArgs, bin, '--user', USER, '--dir', dir, '--embedder', EMBEDDER],
    stderr: 'pipe',
    ...(peer ? { env: { ...(process.env as Record<string, string>), MEMORY_FILE_PATH: dir === STORE ? PEER_STORE : join(dir, 'memory.jsonl') } } : {}),
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'zeromem-bench', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

async function search(client: Client, peer = false): Promise<void> {
  const answer = await client.callTool({ name: peer ? 'search_nodes' : 'search_memories', arguments: { query: 'when is the doctor appointment' } });
  if (answer.isError) throw new Error(`search failed: ${JSON.stringify(answer.content)}`);
}

/** One server from spawn to its first search answered. */
async function start(bin: string, dir: string): Promise<Start> {
  const t0 = performance.now();
  const { client, transport, stderr } = await connect(bin, dir);
  try {
    await client.listTools();
    const listMs = performance.now() - t0;
    if (GAP_MS) await new Promise((resolve) => setTimeout(resolve, GAP_MS));
    const asked = performance.now();
    await search(client, bin === builds.peer);
    const searchMs = performance.now() - t0;
    const searchCallMs = Math.round(performance.now() - asked);
    const pid = transport.pid!;
    const cpuMs = cpuMsOf(pid);
    const [rssMb, anonMb, fileMb] = ['VmRSS', 'RssAnon', 'RssFile'].map((field) => procMb(pid, 'status', field)) as [number, number, number];
    const t1 = performance.now();
    await client.close();
    return { listMs: Math.round(listMs), searchMs: Math.round(searchMs), cpuMs, rssMb, anonMb, fileMb, closeMs: Math.round(performance.now() - t1), searchCallMs };
  } catch (err) {
    await client.close();
    throw new Error(`${(err as Error).message}\n${stderr()}`);
  }
}

/** Three servers of one build at once on the store, each after one search: the sum of their VmRSS and of their Pss. */
async function threeServers(bin: string, dir: string): Promise<{ rssMb: number[]; pssMb: number[] }> {
  const servers = await Promise.all([0, 1, 2].map(() => connect(bin, dir)));
  try {
    await Promise.all(servers.map(({ client }) => search(client, bin === builds.peer)));
    return { rssMb: servers.map(({ transport }) => procMb(transport.pid!, 'status', 'VmRSS')), pssMb: servers.map(({ transport }) => procMb(transport.pid!, 'smaps_rollup', 'Pss')) };
  } finally {
    await Promise.all(servers.map(({ client }) => client.close()));
  }
}

await prepareStore();
const stores: Record<string, (name: string) => string> = { empty: () => mkdtempSync(join(tmpdir(), 'zeromem-mcp-empty-')), '20k': storeOf };
const names = Object.keys(builds);
for (const [name, bin] of Object.entries(builds)) await start(bin, storeOf(name)); // warm-up: the OS cache, and a first open that may rewrite the snapshot
const runs: Record<string, Record<string, Start[]>> = {};
for (const store of Object.keys(stores)) runs[store] = Object.fromEntries(names.map((name) => [name, [] as Start[]]));
const loads: number[] = [];
for (let round = 0; round < RUNS; round++) {
  loads.push(loadavg()[0]!);
  for (const [store, dirFor] of Object.entries(stores)) {
    for (const name of round % 2 ? [...names].reverse() : names) {
      const dir = dirFor(name);
      runs[store]![name]!.push(await start(builds[name]!, dir));
      if (store === 'empty') rmSync(dir, { recursive: true, force: true });
    }
    console.error(`round ${round + 1}/${RUNS} ${store}: ${names.map((n) => `${n} ${JSON.stringify(runs[store]![n]!.at(-1))}`).join('  ')}`);
  }
}
const medians = Object.fromEntries(
  Object.entries(runs).map(([store, byBuild]) => [
    store,
    Object.fromEntries(
      Object.entries(byBuild).map(([name, list]) => [
        name,
        {
          listMs: median(list.map((r) => r.listMs)),
          searchMs: median(list.map((r) => r.searchMs)),
          searchCallMs: median(list.map((r) => r.searchCallMs)),
          cpuMs: median(list.map((r) => r.cpuMs)),
          rssMb: median(list.map((r) => r.rssMb)),
          anonMb: median(list.map((r) => r.anonMb)),
          fileMb: median(list.map((r) => r.fileMb)),
          closeMs: median(list.map((r) => r.closeMs)),
        },
      ]),
    ),
  ]),
);
// Per round, the branch's figure over the base's and over the reference server's (the load moves them alike).
const against = names.filter((name) => name !== 'branch');
const ratios = Object.fromEntries(
  against.map((other) => [
    other,
    Object.fromEntries(
      Object.entries(runs).map(([store, byBuild]) => [
        store,
        Object.fromEntries((['searchMs', 'cpuMs', 'rssMb'] as const).map((key) => [key, Number(median(byBuild.branch!.map((run, i) => run[key] / byBuild[other]![i]![key])).toFixed(2))])),
      ]),
    ),
  ]),
);
const three: Record<string, { rssMb: number[]; pssMb: number[] }> = {};
for (const name of names) three[name] = await threeServers(builds[name]!, storeOf(name));
loads.push(loadavg()[0]!);
const result = { date: new Date().toISOString(), embedder: EMBEDDER, runs: RUNS, gapMs: GAP_MS, loadAverage: { min: Math.min(...loads), max: Math.max(...loads) }, medians, branchOver: ratios, threeServers: three, all: runs };
console.log(JSON.stringify({ loadAverage: result.loadAverage, medians, branchOver: ratios, threeServers: three }, null, 2));
writeFileSync(fileURLToPath(new URL(`./results/mcp-first-search${GAP_MS ? '-gap' : ''}.json`, import.meta.url)), `${JSON.stringify(result, null, 2)}\n`);
