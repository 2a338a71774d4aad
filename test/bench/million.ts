/**
 * A 1M-memory namespace on disk (issue 32): does it work, and what does it cost? Each step
 * is a process of its own (node-storage-worker.ts), one after the other on one store:
 * `import` (rememberMany, 10k a call, no embedder), `prepare` (every memory embedded by a
 * 128-d hashing embedder, the index built, its snapshot stored at close), then `recall`
 * twice (open to the first recall, 100 recalls' latency, resident after them). Prints one
 * JSON line per step with the load average before it, then the store's size.
 *
 *   node --conditions=development --import tsx test/bench/million.ts <dir> [n=1000000] [step]
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const [dir, nText = '1000000'] = process.argv.slice(2);
if (!dir) throw new Error('usage: million.ts <dir> [n]');
const worker = join(import.meta.dirname, 'node-storage-worker.ts');

const only = process.argv[4]; // a step to run alone on an existing store (e.g. `recall`)
const steps = [['import', 'disk', dir, nText], ['prepare', 'disk', dir], ['recall', 'disk', dir], ['recall', 'disk', dir]] as const;
for (const [step, ...args] of steps.filter(([step]) => only === undefined || step === only).slice(0, only ? 1 : undefined)) {
  const load = loadavg()[0]!.toFixed(1);
  const t0 = performance.now();
  const out = execFileSync(process.execPath, ['--conditions=development', '--max-old-space-size=8192', '--import', 'tsx', worker, step, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const seconds = Math.round((performance.now() - t0) / 100) / 10;
  console.log(JSON.stringify({ step, load, seconds, result: JSON.parse(out.trim().split('\n').at(-1)!) }));
}
const bytes = readdirSync(dir).reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
console.log(JSON.stringify({ step: 'size', storeMB: Math.round(bytes / 1e5) / 10, bytesPerMemory: Math.round(bytes / Number(nText)) }));
