/**
 * What SQLite itself costs for the rows one memory writes, without core: the floor under
 * `rememberMany` and `remember` on the SQLite engine, beside the raw better-sqlite3 writes
 * node-storage-worker.ts compares them with. In one process, variants taking turns:
 *
 *   node --conditions=development --import tsx test/bench/sqlite-floor.ts rows [n] [rounds]
 *     CPU microseconds per memory (its record and audit rows, 10k a transaction, WAL,
 *     synchronous FULL): raw's two tables; this release's tables (sqlite-schema.ts) one row a
 *     statement and 64 rows a statement (as sqlite-transactions.ts writes them), and the
 *     same without the content-hash index (what that one index costs).
 *   node --conditions=development --import tsx test/bench/sqlite-floor.ts commits [_] [rounds]
 *     CPU microseconds per one-memory transaction at synchronous NORMAL, 2,000 after 20k rows.
 *   node --conditions=development --import tsx test/bench/sqlite-floor.ts pages
 *     WAL frames (pages) one memory's commit writes, into a store of 20k: raw's and this release's.
 *
 * The record rows are what sqlite-rows.ts makes of a `remember` of short text; content hashes are
 * real SHA-256s (random order: an index of them takes each insert at a random place).
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { namespaceKey } from '../../packages/core/src/model/namespace.ts';
import { NEW_FILE } from '../../packages/core/src/store/sqlite/sqlite-schema.ts';
import { RECORD_COLUMNS, auditColumns, recordColumns } from '../../packages/core/src/store/sqlite/sqlite-rows.ts';
import { toRow } from '../../packages/core/src/store/row.ts';
import { datasetTexts } from './recall-data.ts';

const [mode = 'rows', nText = '100000', roundsText = '2'] = process.argv.slice(2);
const N = mode === 'pages' ? 20_200 : mode === 'commits' ? 22_000 : Number(nText);
const DIR = '/tmp/zeromem-sqlite-floor';
const namespace = { userId: 'bench' };
const ns = namespaceKey(namespace);
const texts = datasetTexts(N, 0x5eed, 0).texts;
const at = Date.now();
const records = texts.map((content, i) =>
  recordColumns(
    toRow({
      id: `01FLOOR${String(i).padStart(19, '0')}`, namespace, namespaceKey: ns, content, source: 'user', layer: 'long_term', tags: [], metadata: {}, importance: 0.5,
      createdAt: at + i, updatedAt: at + i, expiresAt: null, accessCount: 0, lastAccessedAt: null, contentHash: createHash('sha256').update(content + i).digest('hex'),
      version: 1, tier: 'hot', mergedFrom: [], key: null, validFrom: null, validUntil: null, closedBy: null, statedUntil: null,
    }),
  ),
);
const audits = records.map((r) => auditColumns({ ns, op: 'remember', id: r[1], namespace, at, actor: 'local' }));
/** raw's rows: node-storage-worker.ts `rawStore`, the record as one JSON text. */
const rawJson = records.map((r, i) => JSON.stringify({ ...JSON.parse(r[14]), id: r[1], content: texts[i], ns, userId: 'bench' }));

interface Variant {
  db: Database.Database;
  insert(from: number, to: number): void;
}

function open(name: string, schema: string, synchronous = 'FULL'): Database.Database {
  const dir = join(DIR, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const db = new Database(join(dir, 'store.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.exec(schema);
  return db;
}

function raw(synchronous?: string): Variant {
  const db = open('raw', 'CREATE TABLE records (ns TEXT, id TEXT, json TEXT, PRIMARY KEY (ns, id)); CREATE TABLE audit (seq INTEGER PRIMARY KEY, json TEXT)', synchronous);
  const record = db.prepare('INSERT INTO records VALUES (?, ?, ?)');
  const audit = db.prepare('INSERT INTO audit (json) VALUES (?)');
  return { db, insert: (from, to) => { for (let i = from; i < to; i++) { record.run(ns, records[i]![1], rawJson[i]); audit.run(JSON.stringify({ ns, op: 'remember', id: records[i]![1], at })); } } };
}

function ours(name: string, perStatement: number, schema = NEW_FILE, synchronous?: string): Variant {
  const db = open(name, schema, synchronous);
  const tuple = `(${RECORD_COLUMNS.split(', ').map(() => '?').join(', ')})`;
  const recordSql = (k: number) => `INSERT INTO records (${RECORD_COLUMNS}) VALUES ${Array(k).fill(tuple).join(', ')}`;
  const auditSql = (k: number) => `INSERT INTO audit (ns, op, id, at, actor, rest) VALUES ${Array(k).fill('(?, ?, ?, ?, ?, ?)').join(', ')}`;
  const [r1, rk, a1, ak] = [recordSql(1), recordSql(perStatement), auditSql(1), auditSql(perStatement)].map((sql) => db.prepare(sql));
  return {
    db,
    insert(from, to) {
      let i = from;
      for (; perStatement > 1 && i + perStatement <= to; i += perStatement) {
        rk!.run(records.slice(i, i + perStatement).flat());
        ak!.run(audits.slice(i, i + perStatement).flat());
      }
      for (; i < to; i++) {
        r1!.run(records[i]);
        a1!.run(audits[i]);
      }
    },
  };
}

const noHashIndex = NEW_FILE.replace(/CREATE INDEX IF NOT EXISTS records_by_hash [^;]*;/, '');
if (mode === 'rows') {
  const variants: Record<string, () => Variant> = {
    raw: () => raw(),
    'zeromem, 1 row a statement': () => ours('one', 1),
    'zeromem, 64 rows a statement': () => ours('batch', 64),
    'zeromem, 64 rows, no content-hash index': () => ours('nohash', 64, noHashIndex),
  };
  const cpu: Record<string, number[]> = {};
  for (let round = 1; round <= Number(roundsText); round++) {
    for (const [name, make] of Object.entries(variants)) {
      const variant = make();
      const c0 = process.cpuUsage();
      for (let i = 0; i < N; i += 10_000) variant.db.transaction(() => variant.insert(i, Math.min(N, i + 10_000)))();
      const c = process.cpuUsage(c0);
      variant.db.close();
      (cpu[name] ??= []).push((c.user + c.system) / N);
    }
  }
  console.log(JSON.stringify(Object.fromEntries(Object.entries(cpu).map(([name, us]) => [name, us.map((x) => Math.round(x * 100) / 100)]))));
} else if (mode === 'commits') {
  // CPU per one-memory transaction at synchronous NORMAL (durability 'relaxed'; WAL checkpoints as SQLite makes them), after 20k rows.
  const cpu: Record<string, number[]> = {};
  for (let round = 1; round <= Number(roundsText); round++) {
    for (const [name, make] of [['raw', () => raw('NORMAL')], ['zeromem', () => ours('commits', 1, NEW_FILE, 'NORMAL')]] as const) {
      const variant = make();
      variant.db.transaction(() => variant.insert(0, 20_000))();
      const c0 = process.cpuUsage();
      for (let i = 20_000; i < N; i++) variant.db.transaction(() => variant.insert(i, i + 1))();
      const c = process.cpuUsage(c0);
      variant.db.close();
      (cpu[name] ??= []).push(Math.round(((c.user + c.system) / (N - 20_000)) * 100) / 100);
    }
  }
  console.log(JSON.stringify({ cpuMicrosPerOneMemoryCommit: cpu }));
} else {
  const frames = (db: Database.Database) => (statSync(`${db.name}-wal`).size - 32) / (4096 + 24);
  const result: Record<string, number> = {};
  for (const [name, variant] of [['raw', raw('NORMAL')], ['zeromem', ours('pages', 1, NEW_FILE, 'NORMAL')]] as const) {
    variant.db.pragma('wal_autocheckpoint = 0');
    variant.db.transaction(() => variant.insert(0, 20_000))();
    variant.db.pragma('wal_checkpoint(TRUNCATE)');
    for (let i = 20_000; i < N; i++) variant.db.transaction(() => variant.insert(i, i + 1))();
    result[name] = Math.round((frames(variant.db) / (N - 20_000)) * 100) / 100;
    variant.db.close();
  }
  console.log(JSON.stringify({ walFramesPerOneMemoryCommit: result }));
}
rmSync(DIR, { recursive: true, force: true });
