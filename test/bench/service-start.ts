/**
 * What the bundled embedder costs the doors at start: the built `zeromem serve` bin
 * (packages/server/dist/bin.js) from spawn until it answers GET /healthz, and the built
 * `zeromem-mcp` (packages/mcp/dist/bin.js, stdio) from spawn until it says it is ready,
 * each with its resident memory then, with `--embedder none` against the default
 * `--embedder bundled`, on an empty store in a temporary directory. Plain node, as a user
 * runs them; alternating, several runs.
 *
 *   npx -y pnpm@10 build && npx tsx test/bench/service-start.ts   # writes test/bench/results/{service,mcp}-start.json
 *   BENCH_DOORS=mcp npx tsx test/bench/service-start.ts           # one door only (serve | mcp)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './stats.ts';

const RUNS = 7;
type Choice = 'none' | 'bundled';
type Door = 'serve' | 'mcp';
const bin = (pkg: string) => fileURLToPath(new URL(`../../packages/${pkg}/dist/bin.js`, import.meta.url));

/** Spawns a door on an empty store; `ready` says from what it printed whether it serves. */
function spawnDoor(door: Door, embedder: Choice, home: string): { child: ChildProcess; ready: () => Promise<boolean> } {
  if (door === 'serve') {
    const child = spawn(process.execPath, [bin('server'), '--port', '0', '--dir', home, '--embedder', embedder], { env: { ...process.env, ZEROMEM_SERVE_TOKEN: 'bench-token-0123456789abcdef' }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    return { child, ready: async () => { const url = /listening on (\S+)/.exec(out)?.[1]; return !!url && (await fetch(`${url}/healthz`)).ok; } };
  }
  // stdin stays open (a closed stdin stops an MCP stdio server); its readiness line goes to stderr.
  const child = spawn(process.execPath, [bin('mcp'), '--user', 'bench', '--dir', home, '--embedder', embedder], { stdio: ['pipe', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  return { child, ready: async () => /ready on stdio/.test(err) };
}

async function start(door: Door, embedder: Choice): Promise<{ ms: number; rssMb: number }> {
  const home = mkdtempSync(join(tmpdir(), 'zeromem-start-'));
  const t0 = performance.now();
  const { child, ready } = spawnDoor(door, embedder, home);
  try {
    for (;;) {
      if (await ready()) break;
      if (child.exitCode !== null) throw new Error(`${door} exited with ${child.exitCode}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const ms = performance.now() - t0;
    // Resident set of the process (Linux): VmRSS in kB.
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]);
    return { ms: Math.round(ms), rssMb: Math.round(rssKb / 1024) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('close', resolve));
    rmSync(home, { recursive: true, force: true });
  }
}

const doors = (process.env.BENCH_DOORS ?? 'serve,mcp').split(',') as Door[];
for (const door of doors) {
  const runs: Record<Choice, Array<{ ms: number; rssMb: number }>> = { none: [], bundled: [] };
  for (let run = 0; run < RUNS; run++) {
    for (const choice of ['none', 'bundled'] as const) runs[choice].push(await start(door, choice));
    console.log(`${door} run ${run + 1}/${RUNS}`, JSON.stringify({ none: runs.none.at(-1), bundled: runs.bundled.at(-1) }));
  }
  const summary = Object.fromEntries((['none', 'bundled'] as const).map((c) => [c, { ms: median(runs[c].map((r) => r.ms)), rssMb: median(runs[c].map((r) => r.rssMb)) }]));
  console.log(`\n${door}: medians of ${RUNS} runs: ${JSON.stringify(summary)}`);
  const file = door === 'serve' ? 'service-start.json' : 'mcp-start.json';
  writeFileSync(new URL(`./results/${file}`, import.meta.url), `${JSON.stringify({ runs, medians: summary }, null, 2)}\n`);
}
