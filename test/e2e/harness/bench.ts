/**
 * Page side of test/bench/write-chromium.ts. Every timing is taken here, in the page,
 * with performance.now(); the Node side (test/bench/write-suite.ts) only orchestrates and
 * summarizes.
 * test/bench/write-node.ts runs the same functions in Node on fake-indexeddb (nothing here
 * but `environment()` needs a browser).
 *
 * "Acknowledged" = the promise resolved = Dexie saw the IndexedDB transaction's
 * `complete` event (for 'strict' durability Chromium has flushed it to disk by then).
 *
 * The raw-Dexie comparison writes the very rows @zeromem/core would store (built with
 * its own `toRow`) into the very schema it uses (its `MemoryDatabase`), without the SDK's
 * validation, hashing, dedupe lookup and audit log; a second variant uses a schema with
 * only the primary key, the floor of what IndexedDB costs for these rows.
 */
import type { Dexie as DexieClass, Table } from '../../../packages/core/node_modules/dexie';
import { namespaceKey, openMemory, type Memory, type MemoryRecord, type RememberInput } from '@zeromem/core';
// Internals (not in the package's exports) for the raw-Dexie comparison: the same id
// generator, schema and row layout the SDK uses.
import { createUlidGenerator } from '../../../packages/core/src/model/ids.ts';
import { MemoryDatabase } from '../../../packages/core/src/store/dexie/database.ts';
import { toRow, type RecordRow } from '../../../packages/core/src/store/row.ts';
import { mulberry32 as prng } from '../../kit/mulberry32.ts';

type Durability = 'default' | 'strict' | 'relaxed';

/** The Dexie class @zeromem/core loaded (dexie registers itself under this symbol). */
function dexie(): typeof DexieClass {
  const found = (globalThis as Record<symbol, unknown>)[Symbol.for('Dexie')];
  if (typeof found !== 'function') throw new Error('Dexie is not loaded');
  return found as typeof DexieClass;
}

/** The namespace every benchmark record lives in. */
export const BENCH_NS = { userId: 'bench-user', agentId: 'bench-agent' };
/** How many distinct tags there are (t0..t19). */
export const TAG_COUNT = 20;

const WORDS = 'customer prefers phone calls after six order shipped late charging port loose refund approved warranty extended battery replaced screen cracked'.split(' ');

/** `count` distinct memories (content ~100 characters, 1-3 of 20 tags), reproducible from (seed, from). */
export function makeInputs(seed: number, from: number, count: number): RememberInput[] {
  const random = prng(seed * 1_000_003 + from);
  const out: RememberInput[] = new Array(count);
  for (let k = 0; k < count; k++) {
    const i = from + k;
    const words: string[] = [];
    for (let w = 0; w < 12; w++) words.push(WORDS[Math.floor(random() * WORDS.length)]!);
    const tagCount = 1 + Math.floor(random() * 3);
    const tags: string[] = [];
    while (tags.length < tagCount) {
      const tag = `t${Math.floor(random() * TAG_COUNT)}`;
      if (!tags.includes(tag)) tags.push(tag);
    }
    out[k] = { namespace: BENCH_NS, content: `#${seed}-${i} ${words.join(' ')}`, tags, metadata: { i } };
  }
  return out;
}

/** The rows @zeromem/core would store for these inputs (fake but same-sized hashes). */
function makeRows(inputs: RememberInput[], newId: (now: number) => string): RecordRow[] {
  const now = Date.now();
  const nsKey = namespaceKey(BENCH_NS);
  return inputs.map((input, i) => {
    const record: MemoryRecord = {
      id: newId(now),
      namespace: input.namespace,
      namespaceKey: nsKey,
      content: input.content,
      source: 'user',
      layer: 'long_term',
      tags: input.tags ?? [],
      metadata: input.metadata ?? {},
      importance: 0.5,
      createdAt: now,
      updatedAt: now,
      expiresAt: null,
      accessCount: 0,
      lastAccessedAt: null,
      contentHash: (i + 1).toString(16).padStart(64, '0'),
      tier: 'hot',
      mergedFrom: [],
      version: 1,
      key: null,
      validFrom: null,
      validUntil: null,
      closedBy: null,
      statedUntil: null,
    };
    return toRow(record);
  });
}

// ---- open databases, by name ----------------------------------------------------------

const memories = new Map<string, Memory>();
const rawDbs = new Map<string, DexieClass>();

async function memoryFor(name: string, durability: Durability = 'default'): Promise<Memory> {
  let memory = memories.get(name);
  if (!memory) {
    memory = await openMemory({ name, durability });
    memories.set(name, memory);
  }
  return memory;
}

/** Raw Dexie with @zeromem/core's own schema ('same') or only a primary key ('minimal'). */
async function rawFor(name: string, schema: 'same' | 'minimal', durability: Durability = 'default'): Promise<DexieClass> {
  let db = rawDbs.get(name);
  if (!db) {
    if (schema === 'same') db = new MemoryDatabase(name, { durability });
    else {
      const Dexie = dexie();
      db = new Dexie(name, { chromeTransactionDurability: durability });
      db.version(1).stores({ records: '[ns+id]' });
    }
    await db.open();
    rawDbs.set(name, db);
  }
  return db;
}

function recordsOf(db: DexieClass): Table<RecordRow, [string, string]> {
  return db.table('records');
}

/** Closes and deletes a database (either kind). */
export async function drop(name: string): Promise<void> {
  memories.get(name)?.close();
  memories.delete(name);
  rawDbs.get(name)?.close();
  rawDbs.delete(name);
  await dexie().delete(name);
}

/** The page's view of the browser (for the report). */
export function environment(): { userAgent: string; crossOriginIsolated: boolean; hardwareConcurrency: number } {
  return { userAgent: navigator.userAgent, crossOriginIsolated, hardwareConcurrency: navigator.hardwareConcurrency };
}

// ---- (a) single-write latency -----------------------------------------------------------

export interface SingleOptions {
  name: string;
  durability: Durability;
  warmup: number;
  count: number;
  seed: number;
}

/** Latencies (ms) of `count` sequential `remember` calls after `warmup` unmeasured ones. */
export async function coreSingle(o: SingleOptions): Promise<number[]> {
  const memory = await memoryFor(o.name, o.durability);
  const inputs = makeInputs(o.seed, 0, o.warmup + o.count);
  for (let i = 0; i < o.warmup; i++) await memory.remember(inputs[i]!);
  const latencies: number[] = new Array(o.count);
  for (let i = 0; i < o.count; i++) {
    const input = inputs[o.warmup + i]!;
    const start = performance.now();
    await memory.remember(input);
    latencies[i] = performance.now() - start;
  }
  const stored = await memory.count(BENCH_NS);
  if (stored !== o.warmup + o.count) throw new Error(`coreSingle: expected ${o.warmup + o.count} records, found ${stored}`);
  return latencies;
}

/** Latencies (ms) of `count` sequential raw Dexie `table.add(row)` (same schema, same rows). */
export async function rawSingle(o: SingleOptions): Promise<number[]> {
  const db = await rawFor(o.name, 'same', o.durability);
  const table = recordsOf(db);
  const newId = createUlidGenerator();
  const rows = makeRows(makeInputs(o.seed, 0, o.warmup + o.count), newId);
  for (let i = 0; i < o.warmup; i++) await table.add(rows[i]!);
  const latencies: number[] = new Array(o.count);
  for (let i = 0; i < o.count; i++) {
    const row = rows[o.warmup + i]!;
    const start = performance.now();
    await table.add(row);
    latencies[i] = performance.now() - start;
  }
  const stored = await table.count();
  if (stored !== o.warmup + o.count) throw new Error(`rawSingle: expected ${o.warmup + o.count} rows, found ${stored}`);
  return latencies;
}

// ---- (b) bulk import --------------------------------------------------------------------

export interface BulkOptions {
  name: string;
  total: number;
  chunk: number;
  seed: number;
  /** `coreBulk` only: start no further chunk once the timed calls took this long (ms). No limit by default. */
  budgetMs?: number;
}

export interface BulkResult {
  /** Records written: `total`, unless `budgetMs` stopped the run early. */
  records: number;
  /** Sum of the timed write calls (input generation excluded). */
  totalMs: number;
  chunkMs: number[];
  recordsPerSecond: number;
}

/** `rememberMany` in chunks of `chunk`; the memory stays open for `coreList`. */
export async function coreBulk(o: BulkOptions): Promise<BulkResult> {
  const memory = await memoryFor(o.name);
  const chunkMs: number[] = [];
  let records = 0;
  let totalMs = 0;
  for (let from = 0; from < o.total && !(totalMs > (o.budgetMs ?? Number.POSITIVE_INFINITY)); from += o.chunk) {
    const inputs = makeInputs(o.seed, from, Math.min(o.chunk, o.total - from));
    const start = performance.now();
    const { results } = await memory.rememberMany(inputs);
    chunkMs.push(performance.now() - start);
    totalMs += chunkMs[chunkMs.length - 1]!;
    records += inputs.length;
    if (results.length !== inputs.length || results.some((r) => r.deduplicated)) throw new Error('coreBulk: unexpected dedupe');
  }
  const stored = await memory.count(BENCH_NS);
  if (stored !== records) throw new Error(`coreBulk: expected ${records} records, found ${stored}`);
  return { records, totalMs, chunkMs, recordsPerSecond: (records / totalMs) * 1000 };
}

/** Raw Dexie `bulkAdd` of the same rows in chunks (one transaction per chunk). */
export async function rawBulk(o: BulkOptions & { schema: 'same' | 'minimal' }): Promise<BulkResult> {
  const db = await rawFor(o.name, o.schema);
  const table = recordsOf(db);
  const newId = createUlidGenerator();
  const chunkMs: number[] = [];
  for (let from = 0; from < o.total; from += o.chunk) {
    const rows = makeRows(makeInputs(o.seed, from, Math.min(o.chunk, o.total - from)), newId);
    const start = performance.now();
    await table.bulkAdd(rows);
    chunkMs.push(performance.now() - start);
  }
  const stored = await table.count();
  if (stored !== o.total) throw new Error(`rawBulk: expected ${o.total} rows, found ${stored}`);
  const totalMs = chunkMs.reduce((a, b) => a + b, 0);
  return { records: o.total, totalMs, chunkMs, recordsPerSecond: (o.total / totalMs) * 1000 };
}

// ---- (c) tag-filtered list ----------------------------------------------------------------

export interface ListBenchOptions {
  name: string;
  runs: number;
  tag: string;
  limit: number;
}

/** Latencies (ms) of `list(ns, { tags: { any: [tag] }, limit })` on a memory filled by `coreBulk`. */
export async function coreList(o: ListBenchOptions): Promise<number[]> {
  const memory = await memoryFor(o.name);
  const latencies: number[] = [];
  for (let r = 0; r < o.runs; r++) {
    const start = performance.now();
    const page = await memory.list(BENCH_NS, { tags: { any: [o.tag] }, limit: o.limit });
    latencies.push(performance.now() - start);
    if (page.items.length !== o.limit || page.items.some((item) => !item.tags.includes(o.tag))) throw new Error('coreList: wrong page');
  }
  return latencies;
}

/** The same page read with raw Dexie: the tag's sort-key range, newest first, `limit` rows. */
export async function rawList(o: ListBenchOptions): Promise<number[]> {
  const db = await rawFor(o.name, 'same');
  const table = recordsOf(db);
  const prefix = `${namespaceKey(BENCH_NS)}\u0000${o.tag}\u0000`;
  const latencies: number[] = [];
  for (let r = 0; r < o.runs; r++) {
    const start = performance.now();
    const rows = await table.where('byCreated').between(prefix, `${prefix}\uffff`).reverse().limit(o.limit).toArray();
    latencies.push(performance.now() - start);
    if (rows.length !== o.limit || rows.some((row) => !row.tags.includes(o.tag))) throw new Error('rawList: wrong page');
  }
  return latencies;
}
