/**
 * What the bundled embedder costs `zeromem serve` at start: the built zeromem-server
 * (packages/server/dist/bin.js, plain node, as a user runs it) from spawn until it answers
 * GET /healthz, and its resident memory then, with `--embedder none` against the default
 * `--embedder bundled`, on an empty store in a temporary directory. Alternating, several runs.
 *
 *   npx -y pnpm@10 build && npx tsx test/bench/service-start.ts   # writes test/bench/results/service-start.json
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './stats.ts';

const RUNS = 7;
const BIN = fileURLToPath(new URL('../../packages/server/dist/bin.js', import.meta.url));
type Choice = 'none' | 'bundled';

async function start(embedder: Choice): Promise<{ ms: number; rssMb: number }> {
  const home = mkdtempSync(join(tmpdir(), 'zeromem-start-'));
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, '--port', '0', '--dir', home, '--embedder', embedder], { env: { ...process.env, ZEROMEM_SERVE_TOKEN: 'bench-token-0123456789abcdef' }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  try {
    for (;;) {
      const url = /listening on (\S+)/.exec(out)?.[1];
      if (url && (await fetch(`${url}/healthz`)).ok) break;
      if (child.exitCode !== null) throw new Error(`zeromem-server exited: ${out}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const ms = performance.now() - t0;
    // Resident set of the server process (Linux): VmRSS in kB.
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]);
    return { ms: Math.round(ms), rssMb: Math.round(rssKb / 1024) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('close', resolve));
    rmSync(home, { recursive: true, force: true });
  }
}

const runs: Record<Choice, Array<{ ms: number; rssMb: number }>> = { none: [], bundled: [] };
for (let run = 0; run < RUNS; run++) {
  for (const choice of ['none', 'bundled'] as const) runs[choice].push(await start(choice));
  console.log(`run ${run + 1}/${RUNS}`, JSON.stringify({ none: runs.none.at(-1), bundled: runs.bundled.at(-1) }));
}
const summary = Object.fromEntries((['none', 'bundled'] as const).map((c) => [c, { ms: median(runs[c].map((r) => r.ms)), rssMb: median(runs[c].map((r) => r.rssMb)) }]));
console.log(`\nmedians of ${RUNS} runs: ${JSON.stringify(summary)}`);
writeFileSync(new URL('./results/service-start.json', import.meta.url), `${JSON.stringify({ runs, medians: summary }, null, 2)}\n`);
