/**
 * What writing a keyed fact costs against an unkeyed `remember` (issue 24's aim: at most
 * 1.3x). One memory on fake-indexeddb with 2,000 unkeyed memories in the namespace; each
 * round writes 200 unkeyed memories and 200 keyed facts over 20 keys (so every keyed write
 * after the first twenty closes a version), the two kinds taking turns one by one so a load
 * swing hits both alike. Prints one JSON line: per round the median ms of each kind, and
 * the medians over rounds.
 *
 *   npx tsx --conditions=development test/bench/facts-write-cost.ts [rounds=5]
 */
import 'fake-indexeddb/auto';
import { loadavg } from 'node:os';
import { openMemory } from '../../packages/core/src/index.ts';
import { median } from './stats.ts';

const rounds = Number(process.argv[2] ?? 5);
const PER_ROUND = 200;
const KEYS = Number(process.env.FACT_KEYS ?? 20);
const namespace = { userId: 'bench' };
let now = Date.UTC(2026, 0, 1);
const memory = await openMemory({ clock: { now: () => now } });
await memory.rememberMany(Array.from({ length: 2000 }, (_, i) => ({ namespace, content: `note ${i}: the customer asked about order ${i * 31} and the delivery window` })));
await memory.recall(namespace, 'warm the index');
const load = loadavg()[0];
const out: Array<{ unkeyed: number; keyed: number }> = [];
let n = 0;
for (let round = 0; round < rounds; round++) {
  const unkeyed: number[] = [];
  const keyed: number[] = [];
  for (let i = 0; i < PER_ROUND; i++, n++) {
    now += 1000;
    let start = performance.now();
    await memory.remember({ namespace, content: `Round ${round} memory ${i}: likes record shop number ${n}` });
    unkeyed.push(performance.now() - start);
    now += 1000;
    start = performance.now();
    await memory.remember({ namespace, content: `Prefers channel number ${n}`, key: `pref.k${i % KEYS}` });
    keyed.push(performance.now() - start);
  }
  out.push({ unkeyed: median(unkeyed), keyed: median(keyed) });
}
const unkeyed = median(out.map((r) => r.unkeyed));
const keyed = median(out.map((r) => r.keyed));
console.log(JSON.stringify({ rounds: out, medianUnkeyedMs: unkeyed, medianKeyedMs: keyed, ratio: keyed / unkeyed, loadBefore: load, loadAfter: loadavg()[0] }));
memory.close();
