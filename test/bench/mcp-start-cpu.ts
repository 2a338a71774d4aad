/**
 * `zeromem-mcp` from spawn to its first search answered, by `--embedder`, with the CPU time the
 * server process spent until then (all its threads, from /proc/<pid>/stat: a figure the other
 * jobs' load does not grow, unlike the wall time), the sides taking turns:
 *
 *   npx tsc -b packages/mcp/tsconfig.build.json
 *   npx tsx test/bench/mcp-start-cpu.ts <store dir of side 1>,<store dir of side 2> [embedders=bundled,minilm] [rounds=5]
 *
 * Each side's store directory holds a store written with its embedder (e.g. the 20k stores
 * `test/bench/mcp-first-search.ts` writes with BENCH_EMBEDDER / BENCH_STORE); `empty` makes a
 * new empty directory each start. Plain JSON-RPC lines over stdio (initialize, initialized,
 * one `search_memories` call): no client library in the measured path.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './stats.ts';

const BIN = fileURLToPath(new URL('../../packages/mcp/dist/bin.js', import.meta.url));
const dirs = (process.argv[2] ?? 'empty,empty').split(',');
const embedders = (process.argv[3] ?? 'bundled,minilm').split(',');
const rounds = Number(process.argv[4] ?? 5);
const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime + stime of a process, in ms. */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function firstAnswer(embedder: string, dir: string): Promise<{ wallMs: number; cpuMs: number; rssMb: number }> {
  const started = performance.now();
  const server = spawn(process.execPath, [BIN, '--user', 'bench', '--dir', dir, '--embedder', embedder], { stdio: ['pipe', 'pipe', 'ignore'] });
  const send = (message: object) => server.stdin.write(`${JSON.stringify(message)}\n`);
  let buffer = '';
  const answered = new Promise<void>((resolve, reject) => {
    server.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        const message = JSON.parse(line) as { id?: number; error?: unknown; result?: { isError?: boolean } };
        if (message.id === 1) {
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_memories', arguments: { query: 'when is the doctor appointment' } } });
        } else if (message.id === 2) {
          if (message.error || message.result?.isError) reject(new Error(`search failed: ${line}`));
          else resolve();
        }
      }
    });
    server.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
  });
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  await answered;
  const wallMs = Math.round(performance.now() - started);
  const cpuMs = cpuOf(server.pid!);
  const rssMb = Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]) / 1024);
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.stdin.end();
  await exited;
  return { wallMs, cpuMs, rssMb };
}

const runs: Record<string, Array<{ wallMs: number; cpuMs: number; rssMb: number }>> = Object.fromEntries(embedders.map((e) => [e, []]));
const loads = [loadavg()[0]!];
for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? [...embedders].reverse() : embedders;
  for (const embedder of order) {
    const given = dirs[embedders.indexOf(embedder)]!;
    const dir = given === 'empty' ? mkdtempSync(join(tmpdir(), 'zeromem-mcp-cpu-')) : given;
    const run = await firstAnswer(embedder, dir);
    if (given === 'empty') rmSync(dir, { recursive: true, force: true });
    runs[embedder]!.push(run);
    console.error(`round ${round + 1} ${embedder}: ${JSON.stringify(run)}`);
  }
}
loads.push(loadavg()[0]!);
const medians = Object.fromEntries(Object.entries(runs).map(([e, list]) => [e, { wallMs: median(list.map((r) => r.wallMs)), cpuMs: median(list.map((r) => r.cpuMs)), rssMb: median(list.map((r) => r.rssMb)) }]));
console.log(JSON.stringify({ dirs, loads, medians }));
