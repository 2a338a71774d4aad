/**
 * Recall latency of @zeromem/core against stock Orama 3, in one Node process.
 *
 *   npx tsx test/bench/recall-speed.ts            # one run; results/recall-speed.json holds it
 *   npx tsx test/bench/recall-speed.ts --append   # one more run, added to the runs in the JSON
 *
 * For N = 10k and 100k memories in one namespace (random 384-d unit vectors, 6-14 words
 * each from a 4,000-word Zipf vocabulary; queries 2-4 words from the same distribution):
 *  - `memory.recall(ns, q, { k: 10, trackAccess: false })` p50/p95/p99 over QUERIES queries
 *    after warm-up. The embedder looks vectors up in a Map (query embedding ~0, timed
 *    apart); a second pass with timers on the index methods splits the time.
 *  - stock Orama 3 (`content: 'string', embedding: 'vector[384]'`): hybrid search
 *    (similarity 0, same k) and vector-only search over the same data; ratios. At 100k
 *    only 100 queries each (BENCH_ORAMA_QUERIES): a stock hybrid query takes ~1 s there.
 *  - `VectorIndex.search` alone (k = 100 as recall asks, and k = 10), next to the exact
 *    float scan and the JS (no WebAssembly) kernel.
 *  - heap + external and RSS per record of zeromem's index and of Orama (after gc).
 *  - open-to-first-recall with index snapshots off (the full rebuild): the database written
 *    once, a NEW Memory on the same fake-indexeddb factory, time from openMemory() to the
 *    first result, split into reading rows, BM25 inserts and vectors; next to what persisted
 *    state would cost (packed vector and postings-sized blobs read back from IndexedDB,
 *    VectorIndex.fromPacked). test/bench/open-speed.ts measures restoring real snapshots.
 * Percentiles are nearest-rank. The machine is shared: load average and CPU time per
 * query are recorded next to wall time.
 */
import 'fake-indexeddb/auto';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, loadavg, platform, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { openMemory, tokenize, type Embedder, type Memory } from '../../packages/core/src/index.ts';
import { IndexManager } from '../../packages/core/src/search/index-manager.ts';
import { NamespaceIndex } from '../../packages/core/src/search/namespace-index.ts';
import { Bm25Index } from '../../packages/core/src/search/bm25-index.ts';
import { VectorIndex } from '../../packages/core/src/search/vector-index.ts';
import { count, create, insertMultiple, search } from '@orama/orama';
import { median, summarize, type Latency } from './stats.ts';
import { DIM, NS, VOCABULARY, dataset, lookupEmbedder, writeBenchDatabase, type Dataset } from './recall-data.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
const WARMUP = 20;
/** Stock Orama hybrid takes ~1 s a query at 100k here: fewer queries there keep the run near 8 minutes. */
const ORAMA_QUERIES = (n: number) => Number(process.env.BENCH_ORAMA_QUERIES ?? (n > 20_000 ? 100 : QUERIES));
const K = 10;
const APPEND = process.argv.includes('--append');
const outFile = join(dirname(fileURLToPath(import.meta.url)), 'results', 'recall-speed.json');

// ---------- data ----------

// ---------- measuring ----------

interface Timed {
  wall: Latency;
  /** CPU time of the process per query (ms): less sensitive to other load on a shared machine. */
  cpu: Latency;
}

async function timeQueries(count: number, run: (i: number) => unknown, warmup = WARMUP): Promise<Timed> {
  for (let i = 0; i < warmup; i++) await run(i);
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < count; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await run(warmup + i);
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return { wall: summarize(wall), cpu: summarize(cpu) };
}

/** Accumulates the time spent in prototype methods while `on`. */
class Probe {
  totals = new Map<string, { ms: number; calls: number }>();
  #restore: Array<() => void> = [];

  wrap(target: object, name: string, label: string): void {
    const proto = target as Record<string, unknown>;
    const original = proto[name] as (...args: unknown[]) => unknown;
    const totals = this.totals;
    proto[name] = function (this: unknown, ...args: unknown[]) {
      const start = performance.now();
      const result = original.apply(this, args);
      const add = () => {
        const entry = totals.get(label) ?? { ms: 0, calls: 0 };
        entry.ms += performance.now() - start;
        entry.calls++;
        totals.set(label, entry);
      };
      if (result instanceof Promise) return result.finally(add);
      add();
      return result;
    };
    this.#restore.push(() => (proto[name] = original));
  }

  ms(label: string): number {
    return round(this.totals.get(label)?.ms ?? 0);
  }

  calls(label: string): number {
    return this.totals.get(label)?.calls ?? 0;
  }

  reset(): void {
    this.totals.clear();
  }

  unwrap(): void {
    for (const restore of this.#restore.reverse()) restore();
    this.#restore = [];
  }
}

interface MemorySample {
  heap: number;
  rss: number;
}

function memorySample(): MemorySample {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed + m.external, rss: m.rss };
}

function perRecord(after: MemorySample, before: MemorySample, n: number) {
  return { heapPlusExternal: Math.round((after.heap - before.heap) / n), rss: Math.round((after.rss - before.rss) / n) };
}

const round = (x: number) => Math.round(x * 100) / 100;

// ---------- one size ----------

async function benchSize(n: number) {
  const log = (msg: string) => console.error(`[N=${n}] ${msg} (${Math.round(performance.now() / 1000)} s)`);
  const data = dataset(n, 0x5eed + n, QUERIES + WARMUP);
  const embedder = lookupEmbedder(data);
  const factory = new IDBFactory();
  const name = `recall-bench-${n}`;
  const baseline = memorySample();

  const { writeMs, embedMs, copyMs } = await writeBenchDatabase(data, embedder, factory, name);
  log(`written ${Math.round(writeMs)} ms, embedded ${Math.round(embedMs)} ms, copied ${Math.round(copyMs)} ms`);
  const memory: Memory = await openMemory({ embedder, indexedDB: factory, IDBKeyRange, name, indexSnapshots: false });
  let t: number;
  const afterStore = memorySample();

  // The first recall of an instance builds the index from the store.
  t = performance.now();
  const firstResult = await memory.recall(NS, data.queries[0]!, { k: K, trackAccess: false });
  const buildMs = performance.now() - t;
  if (firstResult.vector !== 'used' || firstResult.hits.length !== K) throw new Error(`recall did not run hybrid: vector ${firstResult.vector}, ${firstResult.hits.length} hits`);
  const afterIndex = memorySample();

  embedder.queryMs.length = 0;
  const hybrid = await timeQueries(QUERIES, (i) => memory.recall(NS, data.queries[i]!, { k: K, trackAccess: false }));
  const queryEmbed = summarize(embedder.queryMs.slice(WARMUP));
  log(`zeromem recall p50 ${hybrid.wall.p50} ms`);

  // Where recall's time goes: the same queries again with timers on the index methods.
  const probe = new Probe();
  probe.wrap(IndexManager.prototype, 'ready', 'ready (catch-up from the audit log)');
  probe.wrap(Bm25Index.prototype, 'search', 'text (BM25) search');
  probe.wrap(VectorIndex.prototype, 'search', 'vector search');
  probe.wrap(VectorIndex.prototype, 'similarity', 'similarity of text hits');
  let total = 0;
  for (let i = WARMUP; i < WARMUP + QUERIES; i++) {
    const t0 = performance.now();
    await memory.recall(NS, data.queries[i]!, { k: K, trackAccess: false });
    total += performance.now() - t0;
  }
  probe.unwrap();
  const parts = ['ready (catch-up from the audit log)', 'text (BM25) search', 'vector search', 'similarity of text hits'];
  const breakdown: Record<string, number> = {};
  for (const part of parts) breakdown[part] = round(probe.ms(part) / QUERIES);
  breakdown['fusion, ranking, rest'] = round((total - parts.reduce((sum, part) => sum + probe.ms(part), 0)) / QUERIES);
  breakdown['total (mean)'] = round(total / QUERIES);

  // The vector side alone, on an index of the same vectors.
  const vectorIndex = new VectorIndex(DIM, n);
  data.vectors.forEach((v, i) => vectorIndex.set(`r${i}`, v));
  const accept = () => true;
  const vectorK100 = await timeQueries(QUERIES, (i) => vectorIndex.search(data.queryVectors[i]!, 100, accept));
  const vectorK10 = await timeQueries(QUERIES, (i) => vectorIndex.search(data.queryVectors[i]!, 10));
  const slow = Math.min(QUERIES, 40);
  const vectorExact = await timeQueries(slow, (i) => vectorIndex.searchExact(data.queryVectors[i]!, 100, accept));
  const jsIndex = new VectorIndex(DIM, n, { kernel: 'js' });
  data.vectors.forEach((v, i) => jsIndex.set(`r${i}`, v));
  const vectorJs = await timeQueries(slow, (i) => jsIndex.search(data.queryVectors[i]!, 100, accept));
  let recall10 = 0;
  for (let i = WARMUP; i < WARMUP + slow; i++) {
    const truth = new Set(vectorIndex.searchExact(data.queryVectors[i]!, 10).map((h) => h.id));
    recall10 += vectorIndex.search(data.queryVectors[i]!, 10).filter((h) => truth.has(h.id)).length;
  }
  log(`vector index k=100 p50 ${vectorK100.wall.p50} ms, exact ${vectorExact.wall.p50} ms, js kernel ${vectorJs.wall.p50} ms`);
  const vectorBytes = vectorIndex.byteLength;

  // Stock Orama, same data.
  const beforeOrama = memorySample();
  t = performance.now();
  const orama = create({ schema: { content: 'string', embedding: `vector[${DIM}]` } as const });
  // Stock usage: the vector as a plain number[] (as from JSON); Orama copies it into a Float32Array for its index.
  const docs = data.texts.map((content, i) => ({ id: `r${i}`, content, embedding: Array.from(data.vectors[i]!) }));
  await insertMultiple(orama, docs, 1000);
  const oramaInsertMs = performance.now() - t;
  docs.length = 0;
  const afterOrama = memorySample();
  log(`orama inserted ${count(orama)} in ${Math.round(oramaInsertMs)} ms`);
  const oramaQueries = ORAMA_QUERIES(n);
  const oramaWarmup = Math.min(WARMUP, 5);
  const oramaHybrid = await timeQueries(
    oramaQueries,
    (i) => search(orama, { mode: 'hybrid', term: data.queries[i]!, vector: { value: data.queryVectors[i]!, property: 'embedding' }, similarity: 0, limit: K }),
    oramaWarmup,
  );
  log(`orama hybrid p50 ${oramaHybrid.wall.p50} ms`);
  const oramaVector = await timeQueries(
    oramaQueries,
    (i) => search(orama, { mode: 'vector', vector: { value: data.queryVectors[i]!, property: 'embedding' }, similarity: 0, limit: K }),
    oramaWarmup,
  );
  log(`orama vector p50 ${oramaVector.wall.p50} ms`);

  const result = {
    n,
    setup: { writeMs: Math.round(writeMs), embedMs: Math.round(embedMs), copyMs: Math.round(copyMs), firstRecallOfFirstInstanceMs: Math.round(buildMs), oramaInsertMs: Math.round(oramaInsertMs) },
    zeromem: { hybrid, queryEmbedding: queryEmbed, breakdownMsPerQuery: breakdown },
    orama: { queries: oramaQueries, hybrid: oramaHybrid, vector: oramaVector },
    ratios: {
      hybridP50: round(oramaHybrid.wall.p50 / hybrid.wall.p50),
      hybridP99: round(oramaHybrid.wall.p99 / hybrid.wall.p99),
      hybridCpuP50: round(oramaHybrid.cpu.p50 / hybrid.cpu.p50),
      vectorP50: round(oramaVector.wall.p50 / vectorK10.wall.p50),
    },
    vectorIndex: { k100: vectorK100, k10: vectorK10, exactFloatK100: vectorExact, jsKernelK100: vectorJs, kernel: vectorIndex.kernel, recallAt10: round(recall10 / (10 * slow)) },
    memoryPerRecord: {
      store: perRecord(afterStore, baseline, n),
      zeromemIndex: perRecord(afterIndex, afterStore, n),
      vectorIndexTypedArrays: Math.round(vectorBytes / n),
      orama: perRecord(afterOrama, beforeOrama, n),
    },
    openToFirstRecall: undefined as unknown,
  };

  // Open-to-first-recall on the same database.
  await memory.close();
  jsIndex.remove('r0'); // keep both indexes alive until here, then let them go
  gc();
  const breakdownProbe = new Probe();
  breakdownProbe.wrap(IndexManager.prototype, 'ready', 'ready');
  breakdownProbe.wrap(NamespaceIndex.prototype, 'addMany', 'addMany');
  breakdownProbe.wrap(Bm25Index.prototype, 'addMany', 'bm25 inserts');
  breakdownProbe.wrap(NamespaceIndex.prototype, 'setVector', 'vectors');
  const reopenEmbedder = lookupEmbedder(data);
  t = performance.now();
  const reopened = await openMemory({ embedder: reopenEmbedder, indexedDB: factory, IDBKeyRange, name, indexSnapshots: false }); // the rebuild; open-speed.ts measures snapshots
  const openMs = performance.now() - t;
  const first = await reopened.recall(NS, data.queries[1]!, { k: K, trackAccess: false });
  const firstMs = performance.now() - t;
  breakdownProbe.unwrap();
  const ready = breakdownProbe.ms('ready');
  const textInserts = breakdownProbe.ms('bm25 inserts');
  const vectors = breakdownProbe.ms('vectors');
  const records = breakdownProbe.ms('addMany') - textInserts;
  const openToFirst = {
    totalMs: Math.round(firstMs),
    openMemoryMs: Math.round(openMs),
    hits: first.hits.length,
    vectorMode: first.vector,
    split: {
      'read rows + vectors from IndexedDB, fromRow': Math.round(ready - textInserts - records - vectors),
      'records map': Math.round(records),
      'BM25 index inserts (text)': Math.round(textInserts),
      'vectors (VectorIndex.set)': Math.round(vectors),
      'the recall itself and the rest': Math.round(firstMs - openMs - ready),
    },
    persistedAlternative: await persistedAlternative(data, factory, name),
  };
  result.openToFirstRecall = openToFirst;
  log(`open to first recall ${openToFirst.totalMs} ms`);
  await reopened.close();
  return result;
}

/**
 * What restoring persisted state would cost instead of rebuilding: one packed vector blob
 * per namespace (float32 and int8) and a blob the size of the BM25 postings (Int32 doc +
 * Uint16 tf per posting), written to and read back from the same IndexedDB factory, and
 * a VectorIndex restored from the packed arrays.
 */
async function persistedAlternative(data: Dataset, factory: IDBFactory, name: string) {
  const n = data.vectors.length;
  let postings = 0;
  for (const text of data.texts) postings += new Set(tokenize(text)).size;
  const floats = new Float32Array(n * DIM);
  data.vectors.forEach((v, i) => floats.set(v, i * DIM));
  const ids = data.vectors.map((_, i) => `r${i}`);
  const source = new VectorIndex(DIM, n);
  for (let i = 0; i < n; i++) source.set(ids[i]!, data.vectors[i]!);
  const packed = source.exportPacked();
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = factory.open(`${name}-blobs`, 1);
    request.onupgradeneeded = () => request.result.createObjectStore('packed');
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const put = (key: string, value: unknown) =>
    new Promise<void>((resolve, reject) => {
      const tx = db.transaction('packed', 'readwrite');
      tx.objectStore('packed').put(value, key);
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
    });
  const get = (key: string) =>
    new Promise<unknown>((resolve, reject) => {
      const request = db.transaction('packed').objectStore('packed').get(key);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  await put('f32', { ids, data: floats });
  await put('packed', packed);
  await put('postings', { docs: new Int32Array(postings), tfs: new Uint16Array(postings) });
  // Single operations on a shared machine: the best of three.
  const best = async <T>(work: () => Promise<T> | T): Promise<[number, T]> => {
    let ms = Number.POSITIVE_INFINITY;
    let value: T | undefined;
    for (let i = 0; i < 3; i++) {
      gc();
      const t0 = performance.now();
      value = await work();
      ms = Math.min(ms, performance.now() - t0);
    }
    return [ms, value!];
  };
  const [readF32Ms] = await best(() => get('f32'));
  const [readPackedMs, stored] = await best(async () => (await get('packed')) as ReturnType<VectorIndex['exportPacked']>);
  const [restoreMs, restored] = await best(() => VectorIndex.fromPacked(stored));
  const [readPostingsMs] = await best(() => get('postings'));
  const [setEachMs] = await best(() => {
    const rebuilt = new VectorIndex(DIM, n);
    for (let i = 0; i < n; i++) rebuilt.set(ids[i]!, floats.subarray(i * DIM, (i + 1) * DIM));
    return rebuilt.size;
  });
  const same = restored.search(data.queryVectors[0]!, 10).map((h) => h.id).join() === source.search(data.queryVectors[0]!, 10).map((h) => h.id).join();
  db.close();
  return {
    vectors: {
      float32MB: round(floats.byteLength / 1e6),
      packedMB: round((packed.spans.reduce((sum, span) => sum + span.floats.byteLength + (span.int8?.byteLength ?? 0), 0) + (packed.scales?.byteLength ?? 0)) / 1e6),
      readFloat32BlobMs: Math.round(readF32Ms),
      readPackedBlobMs: Math.round(readPackedMs),
      fromPackedMs: Math.round(restoreMs),
      setOneByOneMs: Math.round(setEachMs),
      restoredSearchesAlike: same,
    },
    text: { postings, postingsMB: round((postings * 6) / 1e6), readPostingsBlobMs: Math.round(readPostingsMs) },
  };
}

// ---------- report ----------

type SizeResult = Awaited<ReturnType<typeof benchSize>>;
interface Run {
  run: number;
  at: string;
  loadAverageBefore: number[];
  loadAverageAfter: number[];
  seconds: number;
  sizes: SizeResult[];
}

function table(runs: Run[]): string {
  const lines: string[] = [];
  const sizes = runs[0]!.sizes.map((s) => s.n);
  const cell = (values: number[]) => `${median(values)} (${Math.min(...values)}–${Math.max(...values)})`;
  for (const n of sizes) {
    const of = (get: (s: SizeResult) => number) => cell(runs.map((r) => get(r.sizes.find((s) => s.n === n)!)));
    lines.push(`\n### N = ${n.toLocaleString('en')} (median of ${runs.length} run(s), range in parentheses; ms)\n`);
    lines.push('| Measurement | p50 | p95 | p99 | CPU p50 |');
    lines.push('|---|---|---|---|---|');
    const row = (label: string, get: (s: SizeResult) => Timed) =>
      lines.push(`| ${label} | ${of((s) => get(s).wall.p50)} | ${of((s) => get(s).wall.p95)} | ${of((s) => get(s).wall.p99)} | ${of((s) => get(s).cpu.p50)} |`);
    row(`zeromem \`memory.recall\` (hybrid, k=10; ${QUERIES} queries)`, (s) => s.zeromem.hybrid);
    const oq = runs[0]!.sizes.find((s) => s.n === n)!.orama.queries;
    row(`Orama 3 hybrid (similarity 0, limit 10; ${oq} queries)`, (s) => s.orama.hybrid);
    row(`Orama 3 vector-only (similarity 0, limit 10; ${oq} queries)`, (s) => s.orama.vector);
    row('zeromem `VectorIndex.search` k=100 + accept (as recall calls it)', (s) => s.vectorIndex.k100);
    row('zeromem `VectorIndex.search` k=10', (s) => s.vectorIndex.k10);
    row('exact float scan k=100 (reference)', (s) => s.vectorIndex.exactFloatK100);
    row('int8 path with the JS kernel (no WebAssembly) k=100', (s) => s.vectorIndex.jsKernelK100);
    lines.push('');
    lines.push('| Derived | value |');
    lines.push('|---|---|');
    lines.push(`| Orama hybrid p50 / zeromem recall p50 | ${of((s) => s.ratios.hybridP50)} |`);
    lines.push(`| Orama hybrid p99 / zeromem recall p99 | ${of((s) => s.ratios.hybridP99)} |`);
    lines.push(`| Orama hybrid / zeromem recall, CPU p50 | ${of((s) => s.ratios.hybridCpuP50)} |`);
    lines.push(`| Orama vector p50 / VectorIndex k=10 p50 | ${of((s) => s.ratios.vectorP50)} |`);
    lines.push(`| query embedding inside recall, p50 (lookup embedder) | ${of((s) => s.zeromem.queryEmbedding.p50)} |`);
    lines.push(`| VectorIndex recall@10 vs exact (${runs[0]!.sizes[0]!.vectorIndex.kernel}) | ${of((s) => s.vectorIndex.recallAt10)} |`);
    for (const part of Object.keys(runs[0]!.sizes.find((s) => s.n === n)!.zeromem.breakdownMsPerQuery)) {
      lines.push(`| recall split, mean ms: ${part} | ${of((s) => s.zeromem.breakdownMsPerQuery[part]!)} |`);
    }
    lines.push(`| bytes/record, zeromem index (heap+external) | ${of((s) => s.memoryPerRecord.zeromemIndex.heapPlusExternal)} |`);
    lines.push(`| bytes/record, zeromem index (RSS) | ${of((s) => s.memoryPerRecord.zeromemIndex.rss)} |`);
    lines.push(`| bytes/record, of which VectorIndex typed arrays | ${of((s) => s.memoryPerRecord.vectorIndexTypedArrays)} |`);
    lines.push(`| bytes/record, Orama (heap+external) | ${of((s) => s.memoryPerRecord.orama.heapPlusExternal)} |`);
    lines.push(`| bytes/record, Orama (RSS) | ${of((s) => s.memoryPerRecord.orama.rss)} |`);
    lines.push(`| bytes/record, fake-indexeddb store (heap+external) | ${of((s) => s.memoryPerRecord.store.heapPlusExternal)} |`);
    const o = (get: (x: Record<string, unknown> & { split: Record<string, number> }) => number) =>
      of((s) => get(s.openToFirstRecall as Record<string, unknown> & { split: Record<string, number> }));
    lines.push(`| open-to-first-recall total ms | ${o((x) => x['totalMs'] as number)} |`);
    lines.push(`| … openMemory() ms | ${o((x) => x['openMemoryMs'] as number)} |`);
    for (const part of Object.keys((runs[0]!.sizes.find((s) => s.n === n)!.openToFirstRecall as { split: Record<string, number> }).split)) {
      lines.push(`| … ${part} ms | ${o((x) => x.split[part]!)} |`);
    }
    const p = (get: (x: Awaited<ReturnType<typeof persistedAlternative>>) => number) =>
      of((s) => get((s.openToFirstRecall as { persistedAlternative: Awaited<ReturnType<typeof persistedAlternative>> }).persistedAlternative));
    lines.push(`| persisted (projection): packed vectors blob read (float32+int8+scales) ms | ${p((x) => x.vectors.readPackedBlobMs)} |`);
    lines.push(`| persisted (projection): VectorIndex.fromPacked ms | ${p((x) => x.vectors.fromPackedMs)} |`);
    lines.push(`| persisted (projection): float32-only blob read ms | ${p((x) => x.vectors.readFloat32BlobMs)} |`);
    lines.push(`| persisted (projection): VectorIndex.set one by one from a blob ms | ${p((x) => x.vectors.setOneByOneMs)} |`);
    lines.push(`| persisted (projection): BM25 postings-sized blob read ms (MB) | ${p((x) => x.text.readPostingsBlobMs)} (${p((x) => x.text.postingsMB)}) |`);
    lines.push(`| setup: rememberMany ms / embedding ms / copy ms / Orama insert ms | ${of((s) => s.setup.writeMs)} / ${of((s) => s.setup.embedMs)} / ${of((s) => s.setup.copyMs)} / ${of((s) => s.setup.oramaInsertMs)} |`);
  }
  return lines.join('\n');
}

async function main() {
  const started = performance.now();
  const loadBefore = loadavg().map(round);
  const sizes: SizeResult[] = [];
  for (const n of SIZES) {
    sizes.push(await benchSize(n));
    gc();
  }
  const previous = APPEND && existsSync(outFile) ? (JSON.parse(readFileSync(outFile, 'utf8')) as { runs: Run[] }).runs : [];
  const run: Run = { run: previous.length + 1, at: new Date().toISOString(), loadAverageBefore: loadBefore, loadAverageAfter: loadavg().map(round), seconds: Math.round((performance.now() - started) / 1000), sizes };
  const runs = [...previous, run];
  const output = {
    benchmark: 'recall-speed',
    command: 'npx tsx test/bench/recall-speed.ts [--append]',
    environment: { node: process.version, v8: process.versions.v8, os: `${platform()} ${release()}`, cpus: cpus().length, cpuModel: cpus()[0]?.model },
    config: { sizes: SIZES, queries: QUERIES, warmup: WARMUP, k: K, dimension: DIM, vocabulary: VOCABULARY, textWords: '6-14', queryWords: '2-4', trackAccess: false },
    runs,
  };
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(output, null, 1)}\n`);
  console.log(`## recall-speed (${runs.length} run(s); load average ${runs.map((r) => r.loadAverageBefore[0]).join(', ')})`);
  console.log(table(runs));
  console.log(`\nwrote ${outFile} in ${run.seconds} s`);
}

await main();
