/**
 * What each index of the records store costs a bulk write in Node's IndexedDB engine
 * (fake-indexeddb, the engine under both the in-memory and the on-disk Node stores):
 * Dexie `bulkAdd` of the rows `rememberMany` writes (core's own `toRow`; no expiry, 1-3
 * tags), into the records schema of `MemoryDatabase` (v4), into the same schema without
 * one index at a time, and into a primary-key-only store. Nothing of core's verbs runs:
 * this is the engine's share of an import and what dropping an index would save.
 *
 *   npx tsx --conditions=development test/bench/index-cost.ts   # BENCH_ROUNDS=n (3), BENCH_N=n (10,000)
 *
 * Each round writes every schema once into a fresh database, in a rotated order, with a
 * full garbage collection before each; the table gives the median records/s over rounds.
 */
import type { Dexie as DexieClass } from '../../packages/core/node_modules/dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createUlidGenerator } from '../../packages/core/src/model/ids.ts';
import { namespaceKey } from '../../packages/core/src/model/namespace.ts';
import { MemoryDatabase } from '../../packages/core/src/store/dexie/database.ts';
import { toRow, type RecordRow } from '../../packages/core/src/store/row.ts';
import { median } from './stats.ts';

// The Dexie class core loaded (its own dependency, not the workspace root's).
const Dexie = Object.getPrototypeOf(MemoryDatabase) as typeof DexieClass;
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const N = Number(process.env.BENCH_N ?? 10_000);
const FULL = ['[ns+contentHash]', 'contentHash', 'userId', 'expiresAt', '[ns+expiresAt]', '*byCreated', '*byUpdated', '[ns+layer+createdAt+id]', '[ns+layer+updatedAt+id]'];
const schemas: Array<[string, string]> = [
  ['v4 (all 9 indexes)', ['[ns+id]', ...FULL].join(', ')],
  ...FULL.map((index): [string, string] => [`without ${index}`, ['[ns+id]', ...FULL.filter((i) => i !== index)].join(', ')]),
  ['primary key only', '[ns+id]'],
];

function rows(n: number): RecordRow[] {
  const newId = createUlidGenerator();
  const namespace = { userId: 'bench' };
  const ns = namespaceKey(namespace);
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => {
    const tags = Array.from({ length: 1 + (i % 3) }, (_, t) => `t${(i * 7 + t) % 20}`);
    const id = newId(now);
    return toRow({
      id, namespace, namespaceKey: ns, content: `memory ${i}: the customer prefers phone calls after six, order ${i * 31} shipped late`, source: 'user', layer: 'long_term', tags, metadata: { i },
      importance: 0.5, createdAt: now, updatedAt: now, expiresAt: null, accessCount: 0, lastAccessedAt: null, contentHash: i.toString(16).padStart(64, '0'), version: 1, tier: 'hot', mergedFrom: [],
      key: null, validFrom: null, validUntil: null, closedBy: null, statedUntil: null,
    });
  });
}

async function once(stores: string, data: RecordRow[]): Promise<number> {
  const db = new Dexie(`index-cost-${Math.random()}`, { indexedDB: new IDBFactory(), IDBKeyRange });
  db.version(1).stores({ records: stores });
  await db.open();
  gc();
  const t0 = performance.now();
  await db.table('records').bulkAdd(data);
  const ms = performance.now() - t0;
  db.close();
  return (N / ms) * 1000;
}

const data = rows(N);
const rates = new Map<string, number[]>(schemas.map(([name]) => [name, []]));
const loadBefore = loadavg()[0]!;
for (let round = 0; round < ROUNDS; round++) {
  for (let k = 0; k < schemas.length; k++) {
    const [name, stores] = schemas[(k + round) % schemas.length]!;
    rates.get(name)!.push(await once(stores, data));
  }
}
const full = median(rates.get(schemas[0]![0])!);
console.log(`Dexie bulkAdd of ${N} rows into fake-indexeddb, ${ROUNDS} rounds, load ${loadBefore.toFixed(1)}-${loadavg()[0]!.toFixed(1)}\n`);
console.log('| records schema | records/s (median) | µs per record | vs v4 |\n|---|---|---|---|');
for (const [name, list] of rates) {
  const rate = median(list);
  console.log(`| ${name} | ${Math.round(rate)} | ${(1e6 / rate).toFixed(1)} | ${(rate / full).toFixed(2)}x |`);
}
