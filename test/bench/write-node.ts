/**
 * Write/read benchmark of @zeromem/core in Node on fake-indexeddb (in memory).
 *
 *   npx tsx test/bench/write-node.ts            # 3 runs (BENCH_RUNS=n to change)
 *
 * The same workloads as test/bench/write-chromium.ts (described in write-suite.ts), with the
 * same functions (test/e2e/harness/bench.ts), run in this process instead of a page.
 * fake-indexeddb has no disk, so (a) has no 'strict' durability to measure. Two more
 * differences from the Chromium run, both because rememberMany slows down with every
 * record already in the namespace on fake-indexeddb (its duplicate lookup, an `anyOf` over
 * [ns+contentHash], is a cursor that fake-indexeddb walks entry by entry: the second 10k
 * chunk takes tens of seconds):
 *  - rememberMany starts no further chunk once its timed calls took BENCH_CORE_BUDGET_S
 *    seconds (45 by default); the table says how many records it wrote and each chunk's time;
 *  - (c) reads the 100k database that raw `bulkAdd` filled (the rows rememberMany would
 *    write, in its schema), with `list()` and with the raw range alike, in alternating order.
 * Every workload gets a database of its own, deleted afterwards, followed by a full garbage
 * collection, so one workload's leftovers do not slow the next one down. Reports the median
 * of the runs and every run, as a Markdown table on stdout and JSON in
 * test/bench/results/write-node.json.
 */
import 'fake-indexeddb/auto';
import { existsSync, readFileSync } from 'node:fs';
import { cpus, platform, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import * as bench from '../e2e/harness/bench.ts';
import { runWriteSuite, type Executor, type Fn } from './write-suite.ts';

// A full collection between workloads (tsx gives no way to pass --expose-gc to the script).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let databases = 0;
/** Each workload on a database name of its own, called directly; then that database is deleted and garbage collected. */
const node: Executor = {
  async fresh(work) {
    const name = `bench-${process.pid}-${++databases}`;
    try {
      return await work(<K extends keyof Fn>(fn: K, arg: Fn[K][0]) => (bench[fn] as (a: Fn[K][0]) => Promise<Fn[K][1]>)(arg), name);
    } finally {
      await bench.drop(name);
      gc();
    }
  },
};

/** The version of an installed package: its entry point resolved, then its package.json found above it. */
function versionOf(specifier: string): string {
  try {
    let dir = dirname(fileURLToPath(import.meta.resolve(specifier)));
    for (;;) {
      const manifest = join(dir, 'package.json');
      if (existsSync(manifest)) {
        const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
        if (name === specifier && version) return version;
      }
      if (dirname(dir) === dir) return 'unknown';
      dir = dirname(dir);
    }
  } catch {
    return 'unknown';
  }
}

const fakeIndexeddb = versionOf('fake-indexeddb');
runWriteSuite({
  benchmark: 'write-node',
  executor: node,
  strict: false,
  coreBudgetMs: Number(process.env.BENCH_CORE_BUDGET_S ?? 45) * 1000,
  listDatabase: 'the 100k raw-bulkAdd database (same schema, same rows), read by list() and by the raw range alike',
  describe: async () => ({
    log: `Node ${process.version}, fake-indexeddb ${fakeIndexeddb}`,
    environment: {
      node: process.version,
      v8: process.versions.v8,
      fakeIndexeddb,
      os: `${platform()} ${release()}`,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      storage: 'fake-indexeddb (in memory, in this process); a database of its own per workload, deleted afterwards',
    },
    heading: (details) => `## @zeromem/core write/read in Node ${process.version} on fake-indexeddb ${fakeIndexeddb} (${details})`,
  }),
}).catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
