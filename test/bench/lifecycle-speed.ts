/**
 * Speed of the lifecycle verbs on one namespace of N memories, in Node on fake-indexeddb:
 * JSONL export (without and with vectors), import of that file into an empty memory,
 * `retier()` (the first pass decays every record; a second pass at the same time finds
 * nothing to write), and `consolidate()` (dry run, then the merge). Memories are short
 * random-word texts, every 20th a reworded near-duplicate of an earlier one, with 128-d
 * feature-hashing vectors (a deterministic stand-in for a model: the bench measures the
 * verbs, not embedding).
 *
 *   npx tsx test/bench/lifecycle-speed.ts [--append]
 *
 * Prints a Markdown table; writes JSON to test/bench/results/lifecycle-speed.json (with
 * --append, this run is added to the runs already there).
 * Timing is never a pass/fail test.
 */
import 'fake-indexeddb/auto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openMemory, type RememberInput } from '@zeromem/core';
import { hashingEmbedder } from '../kit/hashing-embedder.ts';
import { mulberry32 as prng } from '../kit/mulberry32.ts';

const SIZES = [1_000, 10_000];
const DAY = 86_400_000;

/** Feature hashing of the tokens into 128 dimensions. */
const embedder = hashingEmbedder({ modelId: 'bench-hashing-128', dimension: 128 });

function inputs(n: number, start: number): RememberInput[] {
  const random = prng(n);
  const words = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}`);
  const out: RememberInput[] = [];
  for (let i = 0; i < n; i++) {
    const createdAt = start - Math.floor(random() * 60 * DAY);
    if (i % 20 === 19) {
      // A rewording of an earlier memory: same words, other case and punctuation.
      const earlier = out[Math.floor(random() * out.length)]!;
      out.push({ namespace: earlier.namespace, content: `${earlier.content.toUpperCase()}!`, createdAt, importance: random() });
      continue;
    }
    const text = Array.from({ length: 8 + Math.floor(random() * 8) }, () => words[Math.floor(random() ** 2 * words.length)]).join(' ');
    out.push({ namespace: { userId: 'bench' }, content: `${i} ${text}`, createdAt, importance: random() });
  }
  return out;
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: Math.round(performance.now() - start), value };
}

const ns = { userId: 'bench' };
const rows: Array<Record<string, number>> = [];
for (const n of SIZES) {
  let now = Date.UTC(2026, 0, 1);
  const clock = { now: () => now };
  const memory = await openMemory({ name: `lifecycle-${n}`, clock, embedder });
  const data = inputs(n, now);
  for (let i = 0; i < data.length; i += 1000) await memory.rememberMany(data.slice(i, i + 1000));
  await memory.whenEmbedded();
  const plain = await timed(() => memory.exportJsonl({ namespace: ns }));
  const withVectors = await timed(() => memory.exportJsonl({ namespace: ns }, { vectors: true }));
  const target = await openMemory({ name: `lifecycle-${n}-copy`, clock, embedder });
  const imported = await timed(() => target.importJsonl(withVectors.value));
  now += 30 * DAY;
  const firstPass = await timed(() => memory.retier());
  const settledPass = await timed(() => memory.retier());
  const dryRun = await timed(() => memory.consolidate(ns, { dryRun: true }));
  const merge = await timed(() => memory.consolidate(ns));
  rows.push({
    n,
    exportMs: plain.ms,
    exportBytes: plain.value.length,
    exportWithVectorsMs: withVectors.ms,
    exportWithVectorsBytes: withVectors.value.length,
    importMs: imported.ms,
    imported: imported.value.imported,
    retierFirstMs: firstPass.ms,
    decayed: firstPass.value.decayed,
    cooled: firstPass.value.cooled,
    retierSettledMs: settledPass.ms,
    consolidateDryRunMs: dryRun.ms,
    groups: dryRun.value.groups.length,
    consolidateMs: merge.ms,
    merged: merge.value.groups.reduce((sum, g) => sum + g.mergedIds.length, 0),
  });
  await memory.close();
  await target.close();
}

const perSecond = (count: number, ms: number) => Math.round((count / Math.max(ms, 1)) * 1000).toLocaleString('en-US');
console.log(`Node ${process.version}, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}, fake-indexeddb\n`);
console.log('| N | export (ms, MB) | export + vectors (ms, MB) | import of that (ms, records/s) | retier 1st pass (ms; decayed, cooled) | retier again (ms) | consolidate dry run (ms; groups) | consolidate (ms; merged) |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
  console.log(
    `| ${r.n!.toLocaleString('en-US')} | ${r.exportMs}, ${mb(r.exportBytes!)} | ${r.exportWithVectorsMs}, ${mb(r.exportWithVectorsBytes!)} | ${r.importMs}, ${perSecond(r.imported!, r.importMs!)} | ${r.retierFirstMs}; ${r.decayed}, ${r.cooled} | ${r.retierSettledMs} | ${r.consolidateDryRunMs}; ${r.groups} | ${r.consolidateMs}; ${r.merged} |`,
  );
}
const out = join(dirname(fileURLToPath(import.meta.url)), 'results', 'lifecycle-speed.json');
mkdirSync(dirname(out), { recursive: true });
const run = { node: process.version, cores: cpus().length, load: loadavg()[0], rows };
// Every run is kept with --append (one run on a shared machine is not a figure); a file of the
// earlier one-run format counts as its first run.
const earlier = process.argv.includes('--append') && existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as { runs?: unknown[] }) : undefined;
const runs = earlier ? [...(earlier.runs ?? [earlier]), run] : [run];
writeFileSync(out, `${JSON.stringify({ benchmark: 'lifecycle-speed', command: 'npx tsx test/bench/lifecycle-speed.ts [--append]', runs }, null, 1)}\n`);
console.log(`\nwrote ${out}`);
