/**
 * Where consolidation's default cosine threshold comes from: the bundled model's
 * similarity for rewordings of one fact (should merge) and for different facts on one
 * topic (must not), and what each threshold would merge.
 *
 *   npx tsx test/bench/consolidate-threshold.ts
 *
 * Prints Markdown tables; writes JSON to test/bench/results/consolidate-threshold.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CONSOLIDATE_THRESHOLD, toUnitVector } from '@zeromem/core';
import { createTransformersEmbedder } from '@zeromem/embed-transformers';

const PAIRS: Array<{ same: boolean; a: string; b: string }> = [
  { same: true, a: 'The charging port of my phone is loose', b: "My phone's charging port is loose" },
  { same: true, a: 'Prefers phone calls over e-mail', b: 'The user prefers phone calls to email' },
  { same: true, a: 'User lives in Lyon', b: 'The user lives in Lyon, France' },
  { same: true, a: 'Allergic to peanuts', b: 'The user has a peanut allergy' },
  { same: true, a: 'Works as a nurse at the city hospital', b: 'The user is a nurse at the city hospital' },
  { same: true, a: 'Ordered a blue phone case', b: 'User ordered a blue case for the phone' },
  { same: false, a: 'The charging port of my phone is loose', b: 'The phone screen is cracked' },
  { same: false, a: 'Prefers phone calls over e-mail', b: 'Prefers e-mail over phone calls' },
  { same: false, a: 'User lives in Lyon', b: 'User lives in Paris' },
  { same: false, a: 'Allergic to peanuts', b: 'Loves peanut butter' },
  { same: false, a: 'Works as a nurse at the city hospital', b: 'Works as a teacher at the city school' },
  { same: false, a: 'Ordered a blue phone case', b: 'Ordered a red laptop bag' },
  { same: false, a: 'Wants a refund for the broken headphones', b: 'Asked about the warranty of the headphones' },
];
const THRESHOLDS = [0.7, 0.75, 0.8, 0.85, 0.9, 0.95];

const embedder = await createTransformersEmbedder();
const vectors = await embedder.embed(PAIRS.flatMap((p) => [p.a, p.b]), 'document');
const rows = PAIRS.map((pair, i) => {
  const a = toUnitVector(vectors[2 * i], embedder.dimension)!;
  const b = toUnitVector(vectors[2 * i + 1], embedder.dimension)!;
  let cosine = 0;
  for (let k = 0; k < a.length; k++) cosine += a[k]! * b[k]!;
  return { ...pair, cosine: Number(cosine.toFixed(4)) };
});
await embedder.dispose();

console.log(`model ${embedder.modelId}\n\n| should merge | cosine | a | b |\n|---|---|---|---|`);
for (const row of rows) console.log(`| ${row.same ? 'yes' : 'no'} | ${row.cosine.toFixed(3)} | ${row.a} | ${row.b} |`);
const sweep = THRESHOLDS.map((threshold) => ({
  threshold,
  mergedRewordings: rows.filter((r) => r.same && r.cosine >= threshold).length,
  mergedDifferent: rows.filter((r) => !r.same && r.cosine >= threshold).length,
}));
const same = rows.filter((r) => r.same).length;
console.log(`\n| threshold | rewordings merged (of ${same}) | different facts merged (of ${rows.length - same}) |\n|---|---|---|`);
for (const s of sweep) console.log(`| ${s.threshold}${s.threshold === DEFAULT_CONSOLIDATE_THRESHOLD ? ' (default)' : ''} | ${s.mergedRewordings} | ${s.mergedDifferent} |`);
const out = join(dirname(fileURLToPath(import.meta.url)), 'results', 'consolidate-threshold.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({ model: embedder.modelId, default: DEFAULT_CONSOLIDATE_THRESHOLD, pairs: rows, sweep }, null, 2)}\n`);
console.log(`\nwrote ${out}`);
