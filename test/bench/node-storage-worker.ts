/**
 * One measurement of node-storage.ts in a process of its own (so "from disk" means a new
 * process and no run warms the next). Prints its result as JSON on the last line.
 *
 *   node --import tsx test/bench/node-storage-worker.ts ack <disk|disk-relaxed|fake|raw|raw-relaxed> <dir>
 *   node --import tsx test/bench/node-storage-worker.ts import <disk|fake|raw> <dir> <n>
 *   node --import tsx test/bench/node-storage-worker.ts prepare disk <dir>   (embed, build, snapshot the disk store)
 *   node --import tsx test/bench/node-storage-worker.ts open disk <dir>      (open-to-first-recall from disk)
 *   node --import tsx test/bench/node-storage-worker.ts recall disk <dir>    (open to first recall, then 100 recalls: p50, resident)
 *   node --import tsx test/bench/node-storage-worker.ts raw-read disk <dir>  (better-sqlite3 reading every row of that file)
 *   node --import tsx test/bench/node-storage-worker.ts first-write disk <dir> (open-to-first-remember on that store; it writes one memory)
 *   node --import tsx test/bench/node-storage-worker.ts servers disk <dir> <n> (n processes each open that store and recall once: Rss/Pss of each, smaps_rollup)
 *   node --import tsx test/bench/node-storage-worker.ts fake-open <n>        (the same on fake-indexeddb, in one process)
 *   node --import tsx test/bench/node-storage-worker.ts peer <zeromem|mem0|mastra> <dir> <n> <peersDir>
 */
import Database from 'better-sqlite3';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { fork } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openMemory, type Embedder, type Memory } from '../../packages/core/src/index.node.ts';
import { hashingEmbedder, textVector } from '../kit/hashing-embedder.ts';
import { dataset, datasetTexts } from './recall-data.ts';
import { summarize } from './stats.ts';

const [command, kind, dir, nText, peersDir] = process.argv.slice(2);
const NS = { userId: 'bench' };
const WARMUP = 100;
const TIMED = 1000;

/** The same deterministic embedder for every library: a seeded random unit vector per text. */
function embedder(dim: number): Embedder {
  return hashingEmbedder({ modelId: `bench-hash-${dim}`, dimension: dim, perText: true });
}

const texts = (n: number, seed = 0x5eed) => datasetTexts(n, seed, 0).texts;
const round = (x: number) => Math.round(x * 1000) / 1000;

function dirBytes(path: string): number {
  return readdirSync(path).reduce((sum, file) => sum + statSync(join(path, file)).size, 0);
}

async function openKind(k: string, factory?: IDBFactory): Promise<Memory> {
  if (k === 'fake') return openMemory({ name: 'bench', indexedDB: factory ?? new IDBFactory(), IDBKeyRange });
  return openMemory({ name: 'bench', directory: dir!, durability: k === 'disk-relaxed' ? 'relaxed' : 'default' });
}

/** What raw better-sqlite3 writes for one memory: the same record and audit rows as JSON, WAL, synchronous FULL (NORMAL for `raw-relaxed`, as `durability: 'relaxed'`). */
function rawStore(path: string) {
  mkdirSync(path, { recursive: true });
  const db = new Database(join(path, 'raw.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${kind === 'raw-relaxed' ? 'NORMAL' : 'FULL'}`);
  db.exec('CREATE TABLE records (ns TEXT, id TEXT, json TEXT, PRIMARY KEY (ns, id)); CREATE TABLE audit (seq INTEGER PRIMARY KEY, json TEXT)');
  const record = db.prepare('INSERT INTO records VALUES (?, ?, ?)');
  const audit = db.prepare('INSERT INTO audit (json) VALUES (?)');
  let n = 0;
  const row = (content: string) => {
    const id = `01RAW${String(n++).padStart(21, '0')}`;
    const at = Date.now();
    const value = { id, namespace: NS, namespaceKey: 'u=bench', content, source: 'user', layer: 'long_term', tags: [], metadata: {}, importance: 0.5, createdAt: at, updatedAt: at, expiresAt: null, accessCount: 0, lastAccessedAt: null, contentHash: 'f'.repeat(64), version: 1, tier: 'hot', mergedFrom: [], ns: 'u=bench', userId: 'bench', byCreated: [`u=bench\0\0${at}\0${id}`], byUpdated: [`u=bench\0\0${at}\0${id}`] };
    record.run('u=bench', id, JSON.stringify(value));
    audit.run(JSON.stringify({ ns: 'u=bench', op: 'remember', id, namespace: NS, at, actor: 'local' }));
  };
  return { db, one: db.transaction((content: string) => row(content)), many: db.transaction((contents: string[]) => contents.forEach(row)) };
}

async function ack(): Promise<unknown> {
  const contents = texts(WARMUP + TIMED);
  const samples: number[] = [];
  let cpuMicros = 0; // CPU time of the timed writes (user + system, fsync's wait is neither)
  if (kind === 'raw' || kind === 'raw-relaxed') {
    const raw = rawStore(dir!);
    for (const [i, content] of contents.entries()) {
      // One write per macrotask, as an application's writes come (back-to-back fsyncs are cheaper on some disks).
      await new Promise((resolve) => setImmediate(resolve));
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      raw.one(content);
      const c = process.cpuUsage(c0);
      if (i >= WARMUP) samples.push(performance.now() - t0), (cpuMicros += c.user + c.system);
    }
    raw.db.close();
  } else {
    const memory = await openKind(kind!);
    for (const [i, content] of contents.entries()) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      await memory.remember({ namespace: NS, content });
      const c = process.cpuUsage(c0);
      if (i >= WARMUP) samples.push(performance.now() - t0), (cpuMicros += c.user + c.system);
    }
    await memory.close();
  }
  return { ...summarize(samples), cpuMicrosPerWrite: round(cpuMicros / TIMED) };
}

async function bulkImport(): Promise<unknown> {
  const n = Number(nText);
  const contents = texts(n);
  let ms = 0;
  // CPU time of the writes (this thread's and SQLite's, both in-process): steadier than wall time on a loaded machine.
  const cpu0 = process.cpuUsage();
  if (kind === 'raw') {
    const raw = rawStore(dir!);
    for (let i = 0; i < n; i += 10_000) {
      const t0 = performance.now();
      raw.many(contents.slice(i, i + 10_000));
      ms += performance.now() - t0;
    }
    raw.db.close();
  } else {
    const memory = await openKind(kind!);
    for (let i = 0; i < n; i += 10_000) {
      const t0 = performance.now();
      await memory.rememberMany(contents.slice(i, i + 10_000).map((content) => ({ namespace: NS, content })));
      ms += performance.now() - t0;
    }
    await memory.close();
  }
  const cpu = process.cpuUsage(cpu0);
  return { n, recordsPerSecond: Math.round((n / ms) * 1000), cpuMicrosPerRecord: round((cpu.user + cpu.system) / n), bytesPerRecord: kind === 'fake' ? null : Math.round(dirBytes(dir!) / n) };
}

/** The state a user's store is in after a while: every memory embedded (128-d, the bundled model's size), the index built and its snapshot stored. */
async function prepare(): Promise<unknown> {
  const memory = await openMemory({ name: 'bench', directory: dir!, embedder: embedder(128) });
  await memory.whenEmbedded();
  await memory.recall(NS, 'warm the index');
  await memory.close(); // writes the index snapshot
  const n = await countRecords();
  return { n, bytesPerRecord: Math.round(dirBytes(dir!) / n) };
}

async function countRecords(): Promise<number> {
  const memory = await openMemory({ name: 'bench', directory: dir! });
  const n = await memory.count(NS);
  await memory.close();
  return n;
}

async function openToFirstRecall(): Promise<unknown> {
  const t0 = performance.now();
  const memory = await openMemory({ name: 'bench', directory: dir!, embedder: embedder(128) });
  const opened = performance.now() - t0;
  const result = await memory.recall(NS, 'cupi nonorotu vagalo', { trackAccess: false });
  const ms = performance.now() - t0;
  if (result.hits.length !== 10 || result.vector !== 'used') throw new Error(`not a hybrid recall: ${result.vector}, ${result.hits.length} hits`);
  const { heapUsed, rss, arrayBuffers } = process.memoryUsage();
  await memory.close();
  return { openMs: round(opened), openToFirstRecallMs: round(ms), heapMB: Math.round(heapUsed / 2 ** 20), arrayBuffersMB: Math.round(arrayBuffers / 2 ** 20), rssMB: Math.round(rss / 2 ** 20) };
}

/** Recall on the prepared store: open to the first recall, then 100 more (other queries, not in the store's texts), their latency and what the process holds after them. */
async function recallLatency(): Promise<unknown> {
  const { queries } = datasetTexts(0, 0x9ee5, 101);
  const t0 = performance.now();
  const memory = await openMemory({ name: 'bench', directory: dir!, embedder: embedder(128) });
  const first = await memory.recall(NS, queries[0]!, { trackAccess: false });
  const firstMs = performance.now() - t0;
  if (first.vector !== 'used') throw new Error(`not a hybrid recall: ${first.vector}`);
  const samples: number[] = [];
  for (const query of queries.slice(1)) {
    const t1 = performance.now();
    await memory.recall(NS, query, { trackAccess: false });
    samples.push(performance.now() - t1);
  }
  const { heapUsed, rss, arrayBuffers } = process.memoryUsage();
  const n = await memory.count(NS);
  const result = { n, openToFirstRecallMs: round(firstMs), recall: summarize(samples), heapMB: Math.round(heapUsed / 2 ** 20), arrayBuffersMB: Math.round(arrayBuffers / 2 ** 20), rssMB: Math.round(rss / 2 ** 20) };
  // What close() does (storing the index snapshot) is reported, not thrown: at 1M the snapshot may not fit a SQLite blob.
  const closeError = await memory.close().then(
    () => undefined,
    (err: unknown) => (err instanceof Error ? err.message : String(err)),
  );
  return { ...result, ...(closeError === undefined ? {} : { closeError }) };
}

/**
 * Several servers on one store (issue 32: a second and third add no second copy of the
 * index?): n processes each open it and answer one hybrid recall; once all are up, each
 * one's /proc/<pid>/smaps_rollup (Pss: shared pages divided among the processes mapping
 * them; anonymous: the process's own heap and buffers).
 */
async function servers(): Promise<unknown> {
  const children = Array.from({ length: Number(nText) }, () => fork(import.meta.filename, ['serve', 'disk', dir!], { execArgv: process.execArgv }));
  const firstRecallMs = await Promise.all(children.map((child) => new Promise((resolve) => child.once('message', resolve))));
  const mb = (text: string, field: string) => Math.round(Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1]) / 1024);
  const each = children.map((child) => {
    const text = readFileSync(`/proc/${child.pid}/smaps_rollup`, 'utf8');
    return { rssMB: mb(text, 'Rss'), pssMB: mb(text, 'Pss'), anonymousMB: mb(text, 'Anonymous'), sharedMB: mb(text, 'Shared_Clean') + mb(text, 'Shared_Dirty') };
  });
  for (const child of children) child.send('close');
  await Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve))));
  return { processes: each.length, firstRecallMs, each };
}

/** One of {@link servers}: opens the store, recalls once, tells the parent, waits to be told to close. */
async function serve(): Promise<never> {
  const t0 = performance.now();
  const memory = await openMemory({ name: 'bench', directory: dir!, embedder: embedder(128) });
  const result = await memory.recall(NS, 'cupi nonorotu vagalo', { trackAccess: false });
  if (result.vector !== 'used') throw new Error(`not a hybrid recall: ${result.vector}`);
  process.send!(round(performance.now() - t0));
  await new Promise((resolve) => process.once('message', resolve));
  await memory.close();
  process.exit(0);
}

/** The first write after opening the store: openMemory until one remember is acknowledged. */
async function openToFirstRemember(): Promise<unknown> {
  const t0 = performance.now();
  const memory = await openMemory({ name: 'bench', directory: dir!, embedder: embedder(128) });
  await memory.remember({ namespace: NS, content: 'the first write after opening the store' });
  const ms = performance.now() - t0;
  await memory.close();
  return { openToFirstRememberMs: round(ms) };
}

/** The floor of any open that loads the whole store: better-sqlite3 reading every row of the same file (records, audit log, vectors), decoding nothing. */
function rawRead(): unknown {
  const t0 = performance.now();
  const db = new Database(join(dir!, 'bench.sqlite'), { readonly: true });
  let rows = 0;
  for (const table of ['records', 'audit', 'vectors']) for (const row of db.prepare(`SELECT * FROM ${table}`).raw().iterate()) rows += row ? 1 : 0;
  db.close();
  return { rows, readAllMs: round(performance.now() - t0) };
}

/** In-memory fake-indexeddb, the same steps in one process (today's Node figure): a new instance on the prepared factory. */
async function fakeOpenToFirstRecall(n: number): Promise<unknown> {
  const factory = new IDBFactory();
  const contents = texts(n);
  let memory = await openMemory({ name: 'bench', indexedDB: factory, IDBKeyRange });
  let importMs = 0;
  for (let i = 0; i < n; i += 10_000) {
    const t0 = performance.now();
    await memory.rememberMany(contents.slice(i, i + 10_000).map((content) => ({ namespace: NS, content })));
    importMs += performance.now() - t0;
  }
  await memory.close();
  memory = await openMemory({ name: 'bench', indexedDB: factory, IDBKeyRange, embedder: embedder(128) });
  await memory.whenEmbedded();
  await memory.recall(NS, 'warm the index');
  await memory.close();
  const t0 = performance.now();
  memory = await openMemory({ name: 'bench', indexedDB: factory, IDBKeyRange, embedder: embedder(128) });
  const result = await memory.recall(NS, 'cupi nonorotu vagalo', { trackAccess: false });
  const ms = performance.now() - t0;
  if (result.hits.length !== 10 || result.vector !== 'used') throw new Error('not a hybrid recall');
  await memory.close();
  return { n, recordsPerSecond: Math.round((n / importMs) * 1000), bytesPerRecord: null, openToFirstRecallMs: round(ms) };
}

/** A peer library (or zeromem on disk) loaded with n memories: write latency per memory, then recall p50/p95. */
async function peer(): Promise<unknown> {
  const n = Number(nText);
  const DIM = 384;
  const all = dataset(n + 200, 0x9ee5, 50);
  const [load, singles, queries] = [all.texts.slice(0, n), all.texts.slice(n), all.queries];
  const writes: number[] = [];
  const recalls: number[] = [];
  let loadMs = 0;
  const time = async (samples: number[], work: () => Promise<unknown>) => {
    const t0 = performance.now();
    await work();
    samples.push(performance.now() - t0);
  };
  if (kind === 'zeromem') {
    const memory = await openMemory({ name: 'peer', directory: dir!, embedder: embedder(DIM) });
    let t0 = performance.now();
    for (let i = 0; i < n; i += 1000) await memory.rememberMany(load.slice(i, i + 1000).map((content) => ({ namespace: NS, content })));
    await memory.whenEmbedded();
    loadMs = performance.now() - t0;
    // Per memory as an agent writes it: acknowledged, then embedded in the background (waited for, so the
    // next write does not overlap it).
    for (const content of singles) {
      await time(writes, () => memory.remember({ namespace: NS, content }));
      await memory.whenEmbedded();
    }
    for (const q of queries) await time(recalls, () => memory.recall(NS, q, { k: 10 }));
    t0 = performance.now();
    await memory.close();
  } else {
    const require = createRequire(join(peersDir!, 'package.json'));
    const load$ = async (specifier: string) => import(pathToFileURL(require.resolve(specifier)).href);
    const embed = (t: string) => textVector(t, DIM);
    if (kind === 'mem0') {
      process.env.MEM0_TELEMETRY = 'false';
      process.env.MEM0_DIR = dir!;
      const { Memory } = await load$('mem0ai/oss');
      const mem0 = new Memory({
        embedder: { provider: 'langchain', config: { model: { embedQuery: async (t: string) => embed(t), embedDocuments: async (ts: string[]) => ts.map(embed) }, embeddingDims: DIM } },
        llm: { provider: 'langchain', config: { model: { invoke: () => { throw new Error('mem0 called its LLM'); } } } },
        vectorStore: { provider: 'memory', config: { collectionName: 'bench', dimension: DIM, dbPath: join(dir!, 'vectors.db') } },
        disableHistory: true,
      });
      const t0 = performance.now();
      for (let i = 0; i < n; i += 100) await mem0.add(load.slice(i, i + 100).map((content) => ({ role: 'user', content })), { userId: 'bench', infer: false });
      loadMs = performance.now() - t0;
      for (const content of singles) await time(writes, () => mem0.add([{ role: 'user', content }], { userId: 'bench', infer: false }));
      for (const q of queries) await time(recalls, () => mem0.search(q, { filters: { user_id: 'bench' }, limit: 10 }));
    } else if (kind === 'mastra') {
      const { Memory } = await load$('@mastra/memory');
      const { LibSQLStore, LibSQLVector } = await load$('@mastra/libsql');
      const url = `file:${join(dir!, 'mastra.db')}`;
      const model = {
        specificationVersion: 'v2',
        provider: 'bench',
        modelId: 'bench-hash-384',
        maxEmbeddingsPerCall: 2048,
        supportsParallelCalls: true,
        async doEmbed({ values }: { values: string[] }) {
          return { embeddings: values.map(embed) };
        },
      };
      const mastra = new Memory({
        storage: new LibSQLStore({ id: 'bench-store', url }),
        vector: new LibSQLVector({ id: 'bench-vector', url }),
        embedder: model,
        options: { lastMessages: false, semanticRecall: { topK: 10, messageRange: 0, scope: 'resource' }, workingMemory: { enabled: false }, generateTitle: false },
      });
      const thread = await mastra.saveThread({ thread: { id: 'bench-thread', resourceId: 'bench', title: 'bench', createdAt: new Date(), updatedAt: new Date() } });
      let seq = 0;
      const message = (content: string) => ({
        id: `m${seq++}`,
        threadId: thread.id,
        resourceId: 'bench',
        role: 'user',
        createdAt: new Date(Date.UTC(2026, 0, 1) + seq),
        content: { format: 2, parts: [{ type: 'text', text: content }] },
      });
      const t0 = performance.now();
      for (let i = 0; i < n; i += 100) await mastra.saveMessages({ messages: load.slice(i, i + 100).map(message) });
      loadMs = performance.now() - t0;
      for (const content of singles) await time(writes, () => mastra.saveMessages({ messages: [message(content)] }));
      for (const q of queries) await time(recalls, () => mastra.recall({ threadId: thread.id, resourceId: 'bench', vectorSearchString: q }));
    } else throw new Error(`unknown peer ${kind}`);
  }
  return { n, loadMsPerMemory: round(loadMs / n), write: summarize(writes), recall: summarize(recalls) };
}

const result =
  command === 'ack'
    ? await ack()
    : command === 'import'
      ? await bulkImport()
      : command === 'prepare'
        ? await prepare()
        : command === 'open'
          ? await openToFirstRecall()
          : command === 'recall'
            ? await recallLatency()
          : command === 'raw-read'
            ? rawRead()
          : command === 'first-write'
            ? await openToFirstRemember()
          : command === 'servers'
            ? await servers()
          : command === 'serve'
            ? await serve()
          : command === 'fake-open'
            ? await fakeOpenToFirstRecall(Number(kind))
            : command === 'peer'
              ? await peer()
              : (() => {
                  throw new Error(`unknown command ${command}`);
                })();
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0); // peers keep handles (timers, pools) open
