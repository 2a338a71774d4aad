/**
 * Background embedding after a bulk write (issue 32): 100k short English memories written
 * with `rememberMany` (10k a call) into a store on disk opened with the bundled embedder,
 * then the time from the last write's ack until `whenEmbedded()`; beside it the same
 * embedder's own time on the same texts in calls of 64 (the queue's batch). One measurement
 * per process; `--core <dir>` points at another checkout's packages/core/src (base vs branch).
 * Then one recall (the index is built) and close (its snapshot stored): the store's size
 * on disk as a door leaves it (`storeMB`, every file of the store directory). `--loaded`:
 * one recall before the writes, so the namespace's index is loaded and takes every record
 * and vector as they come (a door that has answered a query).
 *
 * `reopen`: the backlog alone, n memories written without an embedder, then the time from
 * opening the store with it to the last vector (no writes beside it); with `--core` the two
 * checkouts' cores take turns in one process for `--rounds` rounds, the embedder alone on
 * the same texts after each round, and a summary line gives medians and the median ratio
 * of each core's time to the model's time of its round.
 *
 *   node --conditions=development --import tsx test/bench/embed-backlog.ts <core|reopen|model> [n] [--core <src dir>] [--loaded] [--rounds r]
 *
 * Prints JSON lines; `marks` are the monotonic clock (microseconds, the clock of a
 * `node --cpu-prof` profile's samples) at the first write, the last write's ack and the
 * last vector (`reopen`: the open, the open done, the last vector), to cut a profile into
 * those windows.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { createBundledEmbedder } from '../../packages/embed-transformers/src/index.ts';

const roundsAt = process.argv.indexOf('--rounds');
const args = process.argv.slice(2).filter((arg, i) => arg !== '--loaded' && i + 2 !== roundsAt && i + 2 !== roundsAt + 1);
const loaded = process.argv.includes('--loaded');
const coreAt = args.indexOf('--core');
const coreDir = coreAt >= 0 ? resolve(args[coreAt + 1]!) : resolve(import.meta.dirname, '../../packages/core/src');
const [what = 'core', nText = '100000'] = args.filter((_, i) => coreAt < 0 || (i !== coreAt && i !== coreAt + 1));
const n = Number(nText);

/** n distinct short English texts: sentences of LongMemEval's sample, cut to ~80 characters, numbered. */
function texts(count: number): string[] {
  const raw = gunzipSync(readFileSync(resolve(import.meta.dirname, '../../../shared/bench-data/longmemeval-s-sample/memories.jsonl.gz'))).toString('utf8');
  const sentences: string[] = [];
  for (const line of raw.split('\n')) {
    if (!line) continue;
    const text = (JSON.parse(line) as { text: string }).text;
    for (const s of text.split(/(?<=[.!?])\s+/)) if (s.length >= 20 && !/\p{Script=Han}/u.test(s)) sentences.push(s.slice(0, 80).replace(/[\uD800-\uDBFF]$/, ''));
    if (sentences.length >= count) break;
  }
  return Array.from({ length: count }, (_, i) => `${sentences[i % sentences.length]} (${i})`);
}

const all = texts(n);
const embedder = await createBundledEmbedder();
if (what === 'model') {
  await embedder.embed([all[0]!], 'document'); // load
  const t0 = performance.now();
  for (let i = 0; i < n; i += 64) await embedder.embed(all.slice(i, i + 64), 'document');
  console.log(JSON.stringify({ what, n, ms: Math.round(performance.now() - t0) }));
} else if (what === 'reopen') {
  // The backlog alone: n memories written without an embedder, then the store opened with
  // it; from the open to the last vector (the backfill reads the records, the queue embeds
  // and stores their vectors), with no write beside it. With --core, this checkout's core and
  // the other one take turns in this process, the embedder alone on the same texts beside them.
  type Core = typeof import('../../packages/core/src/index.node.ts');
  const load = async (dir: string): Promise<Core> => (await import(pathToFileURL(join(dir, 'index.node.ts')).href)) as Core;
  const here = await load(resolve(import.meta.dirname, '../../packages/core/src'));
  const sides: Array<[string, Core]> = coreAt >= 0 ? [['branch', here], ['base', await load(coreDir)]] : [['branch', here]];
  const rounds = roundsAt >= 0 ? Number(process.argv[roundsAt + 1]) : 1;
  await embedder.embed([all[0]!], 'document'); // load, as 'model' does
  const ns = { userId: 'bench' };
  const written = mkdtempSync(join(tmpdir(), 'embed-backlog-'));
  const plain = await here.openMemory({ name: 'bench', directory: written });
  for (let i = 0; i < n; i += 10_000) await plain.rememberMany(all.slice(i, i + 10_000).map((content) => ({ namespace: ns, content })));
  await plain.close();
  const clock = () => Number(process.hrtime.bigint() / 1000n);
  // Wall time, and the process's CPU time (steadier on a loaded machine: it leaves out the
  // time other processes hold the cores; it counts this process's other threads, as SQLite's
  // and the GC's).
  const times: Record<string, number[]> = { model: [] };
  const cpu: Record<string, number[]> = { model: [] };
  const cpuSince = (start: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
  for (let round = 0; round < rounds; round++) {
    for (const [side, core] of round % 2 ? [...sides].reverse() : sides) {
      const dir = mkdtempSync(join(tmpdir(), 'embed-backlog-'));
      cpSync(written, dir, { recursive: true });
      const marks = [clock()];
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const memory = await core.openMemory({ name: 'bench', directory: dir, embedder });
      if (loaded) await memory.recall(ns, 'piano lessons on Sunday');
      marks.push(clock());
      await memory.whenEmbedded();
      const ms = performance.now() - t0;
      const cpuMs = cpuSince(cpu0);
      marks.push(clock());
      await memory.close();
      rmSync(dir, { recursive: true, force: true });
      (times[side] ??= []).push(ms);
      (cpu[side] ??= []).push(cpuMs);
      console.log(JSON.stringify({ what, side, round, n, loaded, embedMs: Math.round(ms), cpuMs: Math.round(cpuMs), load: loadavg()[0], marks }));
    }
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < n; i += 64) await embedder.embed(all.slice(i, i + 64), 'document');
    times.model!.push(performance.now() - t0);
    cpu.model!.push(cpuSince(cpu0));
    console.log(JSON.stringify({ what: 'model', round, n, ms: Math.round(performance.now() - t0), cpuMs: Math.round(cpu.model!.at(-1)!), load: loadavg()[0] }));
  }
  rmSync(written, { recursive: true, force: true });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const ratio = (xs: number[], model: number[]) => Math.round(median(xs.map((x, i) => x / model[i]!)) * 100) / 100;
  const summary = Object.fromEntries(
    Object.keys(times).map((side) => [side, { medianMs: Math.round(median(times[side]!)), medianCpuMs: Math.round(median(cpu[side]!)), perModel: ratio(times[side]!, times.model!), cpuPerModel: ratio(cpu[side]!, cpu.model!) }]),
  );
  console.log(JSON.stringify({ what: 'summary', n, rounds, loaded, ...summary }));
} else {
  const { openMemory } = (await import(pathToFileURL(join(coreDir, 'index.node.ts')).href)) as typeof import('../../packages/core/src/index.node.ts');
  await embedder.embed([all[0]!], 'document'); // load, as 'model' does
  const dir = mkdtempSync(join(tmpdir(), 'embed-backlog-'));
  const memory = await openMemory({ name: 'bench', directory: dir, embedder });
  const ns = { userId: 'bench' };
  if (loaded) await memory.recall(ns, 'piano lessons on Sunday');
  const clock = () => Number(process.hrtime.bigint() / 1000n);
  const marks = [clock()];
  const t0 = performance.now();
  for (let i = 0; i < n; i += 10_000) await memory.rememberMany(all.slice(i, i + 10_000).map((content) => ({ namespace: ns, content })));
  const written = performance.now();
  marks.push(clock());
  const pendingAtLastWrite = memory.pendingEmbeddings();
  await memory.whenEmbedded();
  const embedded = performance.now();
  marks.push(clock());
  await memory.recall(ns, 'piano lessons on Sunday'); // builds the index: close() stores its snapshot, as a door's store holds one
  await memory.close();
  const bytes = readdirSync(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
  rmSync(dir, { recursive: true, force: true });
  console.log(JSON.stringify({ what, n, loaded, writeMs: Math.round(written - t0), afterLastWriteMs: Math.round(embedded - written), pendingAtLastWrite, totalMs: Math.round(embedded - t0), bytesPerRecord: Math.round(bytes / n), storeMB: Math.round(bytes / 1e5) / 10, marks }));
}
