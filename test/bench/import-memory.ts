/**
 * Peak memory of importing a valid zeromem export (issue 29 item 3): `importJsonl()` (one
 * transaction: every parsed record held until it writes) against `zeromem import` (the
 * same reader in batches of 100 records). Needs the built CLI and core (`pnpm build`).
 *
 *   npx tsx test/bench/import-memory.ts [records, default 60000]
 *
 * Each import runs in a process of its own; its peak RSS is Linux's VmHWM, read by
 * `/usr/bin/time -f %M`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const core = join(root, 'packages', 'core', 'dist', 'index.node.js');
const cli = join(root, 'packages', 'cli', 'dist', 'bin.js');

/** Imports `file` into a store in `dir` through the SDK and prints the count (run as a child). */
async function sdkImport(file: string, dir: string): Promise<void> {
  const { openMemory } = (await import(core)) as typeof import('@zeromem/core');
  const memory = await (openMemory as (options: object) => ReturnType<typeof openMemory>)({ name: 'sdk', directory: dir });
  const result = await memory.importJsonl(readFileSync(file, 'utf8'));
  console.log(result.imported);
  await memory.close();
}

/** Writes an export of `n` memories of ~500 characters (5 namespaces, a tag and metadata each). */
async function generate(n: number, dir: string): Promise<string> {
  const { openMemory } = (await import(core)) as typeof import('@zeromem/core');
  const memory = await (openMemory as (options: object) => ReturnType<typeof openMemory>)({ name: 'gen', directory: dir, durability: 'relaxed' });
  const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega'.split(' ');
  for (let start = 0; start < n; start += 2000) {
    const batch = [];
    for (let i = start; i < Math.min(n, start + 2000); i++) {
      let text = `Record ${i}:`;
      while (text.length < 500) text += ` ${words[(i * 7 + text.length) % words.length]}`;
      batch.push({ namespace: { userId: 'gen', agentId: `a${i % 5}` }, content: text, tags: [`t${i % 7}`], metadata: { i, kind: 'bench' } });
    }
    await memory.rememberMany(batch);
  }
  const file = join(dir, 'gen.jsonl');
  writeFileSync(file, await memory.exportJsonl({ userId: 'gen' }));
  await memory.close();
  return file;
}

/** Peak RSS (MB) and seconds of `node <args>`. */
function measure(args: readonly string[]): { peakMB: number; seconds: number } {
  const started = Date.now();
  const run = spawnSync('/usr/bin/time', ['-f', 'peak-kb %M', process.execPath, ...args], { encoding: 'utf8' });
  const kb = /peak-kb (\d+)/.exec(run.stderr)?.[1];
  if (run.status !== 0 || kb === undefined) throw new Error(`failed (${run.status}): ${run.stderr}`);
  return { peakMB: Math.round(Number(kb) / 1024), seconds: (Date.now() - started) / 1000 };
}

if (process.argv[2] === 'sdk') {
  await sdkImport(process.argv[3]!, process.argv[4]!);
} else {
  const n = Number(process.argv[2] ?? 60_000);
  const work = mkdtempSync(join(tmpdir(), 'zeromem-import-memory-'));
  try {
    mkdirSync(join(work, 'gen'));
    const file = await generate(n, join(work, 'gen'));
    console.log(`export: ${n} records, ${(statSync(file).size / 1048576).toFixed(1)} MB`);
    const runs: Array<[string, string[]]> = [
      ['importJsonl() (SDK, one transaction)', ['--import', 'tsx', fileURLToPath(import.meta.url), 'sdk', file, join(work, 'sdk')]],
      ['zeromem import (batches of 100)', [cli, 'import', file, '--dir', join(work, 'cli')]],
    ];
    for (const [label, args] of runs) {
      const { peakMB, seconds } = measure(args);
      console.log(`${label}: peak RSS ${peakMB} MB, ${seconds.toFixed(1)} s`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
