/**
 * `zeromem serve` under concurrent load (issue 21's aim: 25 writers and 25 readers for 60 s,
 * writes answered with p50 <= 20 ms and p99 <= 200 ms). Starts the built bin
 * (packages/server/dist/bin.js, plain node, as a user runs it) on a temporary `--dir`,
 * listening on 127.0.0.1 with a random port; fills one namespace with `--fill` memories
 * (batches of 500) and, with an embedder, waits until the fill is embedded; then runs
 * `--writers` writer loops (POST /v1/memories, one memory per request) and `--readers`
 * reader loops (POST /v1/recall on the filled namespace, k = 10), each loop sending its
 * next request once the last was answered, over keep-alive HTTP (fetch's connection
 * pool), until `--seconds` have passed. Every request's latency is recorded; the server is
 * stopped at the end.
 *
 * Writers write each into its own namespace (agentId `writer-<i>`, same user) by default;
 * `--shared` makes them all write into the filled namespace the readers recall from.
 *
 *   npx -y pnpm@10 build && npx tsx test/bench/service-load.ts                        # 25 + 25, 60 s, --embedder none
 *   npx tsx test/bench/service-load.ts --embedder bundled --seconds 60 --shared       # the default embedder, one namespace
 *   BENCH_SERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' npx tsx test/bench/service-load.ts   # profile the server
 *
 * Prints one JSON line and appends it to test/bench/results/service-load.json (a JSON array).
 * The client loops run in this process: on a 2-core machine they share the CPU with the
 * server, so the numbers are the service's latency as a client on the same machine sees it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { mulberry32 as prng } from '../kit/mulberry32.ts';
import { summarize } from './stats.ts';

const { values: options } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    writers: { type: 'string', default: '25' },
    readers: { type: 'string', default: '25' },
    fill: { type: 'string', default: '3000' },
    embedder: { type: 'string', default: 'none' },
    shared: { type: 'boolean', default: false },
  },
});
const SECONDS = Number(options.seconds);
const WRITERS = Number(options.writers);
const READERS = Number(options.readers);
const FILL = Number(options.fill);
const EMBEDDER = options.embedder!;
if (![SECONDS, WRITERS, READERS, FILL].every((n) => Number.isInteger(n) && n >= 0) || SECONDS === 0) throw new Error('--seconds, --writers, --readers and --fill take whole numbers (seconds > 0)');

const TOKEN = 'bench-token-0123456789abcdef';
const filled = { userId: 'bench', agentId: 'after-sales' };
const WORDS = ['charging', 'port', 'battery', 'invoice', 'refund', 'callback', 'wednesday', 'technician', 'screen', 'cable', 'warranty', 'delivery', 'order', 'loose', 'replaced', 'customer', 'phone', 'email', 'contract', 'upgrade', '充电口', '接触不良', '工单', '回访', '发票', '退款', '电池', '屏幕'];
const sentence = (random: () => number, words: number) => Array.from({ length: words }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');

const round1 = (x: number) => Math.round(x * 10) / 10;
/** CPU seconds (user + system) a process has used so far, from /proc (Linux, 100 clock ticks a second; undefined elsewhere). */
function cpuSeconds(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}
/**
 * The server's main thread (its event loop) from /proc/<pid>/schedstat (Linux): seconds on
 * a CPU and seconds runnable but waiting for one (a busy machine's share); undefined elsewhere.
 */
function mainThreadSched(pid: number): { runS: number; waitS: number } | undefined {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { runS: run! / 1e9, waitS: wait! / 1e9 };
  } catch {
    return undefined;
  }
}
const load = () => loadavg().map(round1);

const bin = fileURLToPath(new URL('../../packages/server/dist/bin.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'zeromem-bench-load-'));
// BENCH_SERVER_NODE_ARGS: extra node flags for the server process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
const child = spawn(process.execPath, [...nodeArgs, bin, '--host', '127.0.0.1', '--port', '0', '--name', 'load', '--dir', dir, '--embedder', EMBEDDER], {
  env: { ...process.env, ZEROMEM_SERVE_TOKEN: TOKEN },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));

/** POSTs JSON; returns the status (0 for a failed connection) and the time it took. */
async function post(url: string, path: string, body: unknown): Promise<{ status: number; ms: number; json?: unknown }> {
  const t0 = performance.now();
  try {
    const response = await fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = await response.json();
    return { status: response.status, ms: performance.now() - t0, json };
  } catch {
    return { status: 0, ms: performance.now() - t0 };
  }
}

try {
  const started = Date.now();
  while (!/listening on (\S+)/.test(out)) {
    if (child.exitCode !== null) throw new Error(`zeromem serve exited with ${child.exitCode}`);
    if (Date.now() - started > 120_000) throw new Error('zeromem serve did not start within 120 s');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const url = /listening on (\S+)/.exec(out)![1]!;
  if (!/^http:\/\/127\.0\.0\.1:/.test(url)) throw new Error(`expected a 127.0.0.1 address, got ${url}`);

  const fillRandom = prng(1);
  for (let i = 0; i < FILL; i += 500) {
    const memories = Array.from({ length: Math.min(500, FILL - i) }, (_, j) => ({ namespace: filled, content: `${sentence(fillRandom, 10)} #fill-${i + j}` }));
    const answer = await post(url, '/v1/memories', { memories });
    if (answer.status !== 201 && answer.status !== 200) throw new Error(`fill: ${answer.status} ${JSON.stringify(answer.json)}`);
  }
  // With an embedder the fill is embedded in the background: the load starts once it is (within 5 min).
  const pending = async () => ((await post(url, '/v1/recall', { namespace: filled, query: 'charging port', k: 10 })).json as { pendingEmbeddings?: number }).pendingEmbeddings ?? 0;
  const embedStarted = performance.now();
  let pendingAtStart = await pending();
  while (pendingAtStart > 0 && performance.now() - embedStarted < 300_000) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    pendingAtStart = await pending();
  }
  const embedWaitS = (performance.now() - embedStarted) / 1000;

  const writes: number[] = [];
  const reads: number[] = [];
  const errors: Record<string, number> = {};
  const loadBefore = load();
  const serverCpuBefore = cpuSeconds(child.pid!);
  const schedBefore = mainThreadSched(child.pid!);
  const clientCpuBefore = process.cpuUsage();
  const deadline = performance.now() + SECONDS * 1000;
  const loop = async (samples: number[], request: () => Promise<{ status: number; ms: number }>) => {
    while (performance.now() < deadline) {
      const { status, ms } = await request();
      if (status >= 200 && status < 300) samples.push(ms);
      else errors[String(status)] = (errors[String(status)] ?? 0) + 1;
    }
  };
  const writer = (i: number) => {
    const random = prng(100 + i);
    const namespace = options.shared ? filled : { userId: 'bench', agentId: `writer-${i}` };
    let n = 0;
    return loop(writes, () => post(url, '/v1/memories', { namespace, content: `${sentence(random, 10)} #w${i}-${n++}` }));
  };
  const reader = (i: number) => {
    const random = prng(200 + i);
    return loop(reads, () => post(url, '/v1/recall', { namespace: filled, query: sentence(random, 3), k: 10 }));
  };
  const t0 = performance.now();
  await Promise.all([...Array.from({ length: WRITERS }, (_, i) => writer(i)), ...Array.from({ length: READERS }, (_, i) => reader(i))]);
  const elapsedS = (performance.now() - t0) / 1000;
  const loadAfter = load();
  const serverCpuAfter = cpuSeconds(child.pid!);
  const schedAfter = mainThreadSched(child.pid!);
  const clientCpu = process.cpuUsage(clientCpuBefore);

  const stat = (samples: number[]) => {
    if (samples.length === 0) return { count: 0 };
    const { p50, p95, p99, max, n } = summarize(samples);
    return { count: n, perSecond: round1(n / elapsedS), p50, p95, p99, max };
  };
  const result = {
    at: new Date().toISOString(),
    embedder: EMBEDDER,
    writers: WRITERS,
    readers: READERS,
    writerNamespaces: options.shared ? 'shared (the filled one)' : 'one per writer',
    fill: FILL,
    pendingEmbeddingsAtStart: pendingAtStart,
    embedWaitS: round1(embedWaitS),
    seconds: round1(elapsedS),
    writes: stat(writes),
    reads: stat(reads),
    errors,
    loadBefore,
    loadAfter,
    // CPU seconds used during the load phase: the server process, and this client process.
    serverCpuS: serverCpuBefore === undefined || serverCpuAfter === undefined ? undefined : round1(serverCpuAfter - serverCpuBefore),
    // The server's event-loop thread: seconds running, and seconds runnable but waiting for a CPU.
    serverLoopRunS: schedBefore && schedAfter ? round1(schedAfter.runS - schedBefore.runS) : undefined,
    serverLoopRunQueueS: schedBefore && schedAfter ? round1(schedAfter.waitS - schedBefore.waitS) : undefined,
    clientCpuS: round1((clientCpu.user + clientCpu.system) / 1e6),
    cpus: cpus().length,
  };
  console.log(JSON.stringify(result));
  const file = fileURLToPath(new URL('./results/service-load.json', import.meta.url));
  const earlier = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as unknown[]) : [];
  writeFileSync(file, `${JSON.stringify([...earlier, result], null, 2)}\n`);
} finally {
  child.kill('SIGTERM');
  if (child.exitCode === null) await new Promise((resolve) => child.once('close', resolve));
  rmSync(dir, { recursive: true, force: true });
}
