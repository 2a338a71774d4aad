/**
 * zeromem recall latency alone at one size, several rounds in one process: the quick
 * A/B companion of recall-speed.ts (no Orama, no open or memory measurements), for
 * comparing two commits (run the same file in a worktree of each).
 *
 *   npx tsx --conditions=development test/bench/recall-p50.ts [N=100000] [rounds=3]
 *   RECALL_PROFILE=/tmp/recall.cpuprofile npx tsx --conditions=development test/bench/recall-p50.ts   # + a CPU profile of the timed rounds only
 *
 * The same data as recall-speed.ts (recall-data.ts, same seed per N), 200 queries per
 * round after warm-up, k = 10, `trackAccess: false`. Prints one JSON line: the wall and
 * CPU p50 of each round, their medians, and the load average before and after.
 *
 * A/B on a shared machine: start one process in each checkout at once with the same
 * RECALL_TURNS=/tmp/turns and RECALL_SIDE=a or b; both build, then take turns round by
 * round (a, b, a, b, ...), so a load swing hits both sides alike.
 */
import 'fake-indexeddb/auto';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { openMemory } from '../../packages/core/src/index.ts';
import { median, summarize } from './stats.ts';
import { NS, dataset, lookupEmbedder, writeBenchDatabase } from './recall-data.ts';

const n = Number(process.argv[2] ?? 100_000);
const rounds = Number(process.argv[3] ?? 3);
const QUERIES = 200;
const WARMUP = 20;

const data = dataset(n, 0x5eed + n, QUERIES + WARMUP);
const embedder = lookupEmbedder(data);
const factory = new IDBFactory();
await writeBenchDatabase(data, embedder, factory, 'recall-p50');
const memory = await openMemory({ embedder, indexedDB: factory, IDBKeyRange, name: 'recall-p50', indexSnapshots: false });
await memory.recall(NS, data.queries[0]!, { k: 10, trackAccess: false }); // builds the index
const profileFile = process.env['RECALL_PROFILE'];
const session = profileFile ? new Session() : undefined;
if (session) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
const loadBefore = loadavg()[0]!;
const p50s: number[] = [];
const p95s: number[] = [];
const cpuP50s: number[] = [];
const turns = process.env['RECALL_TURNS'];
const side = process.env['RECALL_SIDE'] ?? 'a';
const waitFor = async (turn: string) => {
  while (turns && (existsSync(turns) ? readFileSync(turns, 'utf8') : '') !== turn) await new Promise((resolve) => setTimeout(resolve, 50));
};
if (turns && side === 'b') writeFileSync(turns, 'a0'); // b built: a may start (a waits until then)
for (let round = 0; round < rounds; round++) {
  await waitFor(`${side}${round}`);
  for (let i = 0; i < WARMUP; i++) await memory.recall(NS, data.queries[i]!, { k: 10, trackAccess: false });
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = WARMUP; i < WARMUP + QUERIES; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await memory.recall(NS, data.queries[i]!, { k: 10, trackAccess: false });
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const s = summarize(wall);
  p50s.push(s.p50);
  p95s.push(s.p95);
  cpuP50s.push(summarize(cpu).p50);
  if (turns) writeFileSync(turns, side === 'a' ? `b${round}` : `a${round + 1}`);
}
if (session && profileFile) {
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(profileFile, JSON.stringify(profile));
  session.disconnect();
}
await memory.close();
const r = (x: number) => Math.round(x * 100) / 100;
console.log(JSON.stringify({ side, n, p50s, p95s, cpuP50s, medianP50: median(p50s), medianCpuP50: median(cpuP50s), load: [r(loadBefore), r(loadavg()[0]!)] }));
