import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { openDexieStore } from '../../src/store/dexie/dexie-store.ts';
import { ZeromemError } from '../../src/public/errors.ts';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-engine.ts';
import type { AuditRow, StoragePort } from '../../src/store/port.ts';
import { toRow, type RecordRow } from '../../src/store/row.ts';
import type { MemoryRecord } from '../../src/public/memory-record.ts';
import { expectCode } from '../helpers.ts';

/**
 * More of the storage port's semantics than its contract (storage-port-contract.ts)
 * checks, on both engines: rows come back exactly as put (null and absent fields apart,
 * a caller's copy), tag and time streams follow a put and a delete, a filtered page stops
 * at its limit, concurrent writes fail alone and commit in order. Then what only the
 * SQLite engine promises: its transactions hold across awaits of other work.
 */
const dirs: string[] = [];
const stores: StoragePort[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

let databases = 0;
const engines: Array<[string, () => Promise<StoragePort>]> = [
  ['Dexie (fake-indexeddb)', () => openDexieStore(`contract-${databases++}`, { indexedDB: new IDBFactory(), IDBKeyRange })],
  [
    'SQLite',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'zeromem-port-'));
      dirs.push(dir);
      return openSqliteStore(dir, 'contract', { durability: 'relaxed', checkContentHashes: false });
    },
  ],
];

function record(ns: string, id: string, fields: Partial<MemoryRecord> & Partial<RecordRow> = {}): RecordRow {
  const userId = ns.split('=')[1] ?? 'u';
  const base: MemoryRecord = {
    id,
    namespace: { userId },
    namespaceKey: ns,
    content: `content of ${id}`,
    source: 'user',
    layer: 'long_term',
    tags: [],
    metadata: {},
    importance: 0.5,
    createdAt: 1000,
    updatedAt: 1000,
    expiresAt: null,
    accessCount: 0,
    lastAccessedAt: null,
    contentHash: `hash-${id}`,
    version: 1,
    tier: 'hot',
    mergedFrom: [],
    key: null,
    validFrom: null,
    validUntil: null,
    closedBy: null,
    statedUntil: null,
  };
  const { key, validFrom, validUntil, closedBy, history, decayedAt, ...rest } = fields;
  return { ...toRow({ ...base, ...rest }), ...(key !== undefined ? { key } : {}), ...(validFrom !== undefined ? { validFrom } : {}), ...(validUntil !== undefined ? { validUntil } : {}), ...(closedBy !== undefined ? { closedBy } : {}), ...(history ? { history } : {}), ...(decayedAt !== undefined ? { decayedAt } : {}) };
}

/** A row as an engine hands it back: the port's fields (another engine's index fields aside). */
function stored(row: RecordRow): Omit<RecordRow, 'byCreated' | 'byUpdated'> {
  const { byCreated: _c, byUpdated: _u, ...rest } = row;
  return rest;
}
const ids = (rows: RecordRow[]) => rows.map((row) => row.id);

function audit(ns: string, id: string, fields: Partial<AuditRow> = {}): AuditRow {
  return { ns, op: 'remember', id, namespace: { userId: ns.split('=')[1] ?? 'u' }, at: 5, actor: 'local', ...fields };
}

describe.each(engines)('the storage port on %s', (_engine, open) => {
  async function fresh(): Promise<StoragePort> {
    const store = await open();
    stores.push(store);
    return store;
  }

  it('hands back each row as it was put (nullable and optional fields, history, keyed facts), undefined for missing keys, in the order asked', async () => {
    const store = await fresh();
    const plain = record('u=a', 'r1', { tags: ['x', 'y'], metadata: { n: 1, nested: { deep: [1, 'two', null] } }, expiresAt: 9000, lastAccessedAt: 7 });
    const fact = record('u=a', 'r2', { key: 'city', validFrom: 100, validUntil: null, decayedAt: 50 });
    const closed = record('u=a', 'r3', { key: 'city', validFrom: 10, validUntil: 100, closedBy: 'r2', history: [{ version: 1, content: 'old', contentHash: 'h', source: 'user', layer: 'long_term', tags: [], metadata: {}, importance: 0.5, createdAt: 1, updatedAt: 1, expiresAt: null, mergedFrom: [], changedAt: 2, changedBy: 'local' }] });
    await store.write((tx) => tx.putRecords([plain, fact, closed]));
    const got = await store.read((tx) => tx.getRecords([['u=a', 'r3'], ['u=a', 'missing'], ['u=b', 'r1'], ['u=a', 'r1'], ['u=a', 'r2']]));
    expect(got.map((row) => row && stored(row))).toEqual([stored(closed), undefined, undefined, stored(plain), stored(fact)]);
    expect(got[4]).toHaveProperty('validUntil', null);
    expect(got[3]).not.toHaveProperty('validUntil');
    // Changing a row handed out changes nothing stored.
    got[3]!.content = 'changed by the caller';
    expect((await store.read((tx) => tx.getRecords([['u=a', 'r1']])))[0]!.content).toBe('content of r1');
  });

  it('ordered pages: by either time then id, both directions, one tag or one layer, time bounds, a cursor, and a filter that stops at the limit', async () => {
    const store = await fresh();
    const rows = [
      record('u=a', 'e', { createdAt: 10, updatedAt: 60, tags: ['t'] }),
      record('u=a', 'a', { createdAt: 20, updatedAt: 50, tags: ['t', 'u'], layer: 'session' }),
      record('u=a', 'b', { createdAt: 20, updatedAt: 40 }),
      record('u=a', 'c', { createdAt: 30, updatedAt: 30, tags: ['u'], layer: 'session' }),
      record('u=a', 'd', { createdAt: 40, updatedAt: 20, tags: ['t'] }),
      record('u=b', 'z', { createdAt: 25, updatedAt: 25, tags: ['t'] }),
    ];
    await store.write((tx) => tx.putRecords(rows));
    await store.read(async (tx) => {
      const q = { ns: 'u=a', orderBy: 'createdAt', order: 'asc' } as const;
      expect(ids(await tx.orderedRecords(q))).toEqual(['e', 'a', 'b', 'c', 'd']);
      expect(ids(await tx.orderedRecords({ ...q, order: 'desc' }))).toEqual(['d', 'c', 'b', 'a', 'e']);
      expect(ids(await tx.orderedRecords({ ...q, orderBy: 'updatedAt' }))).toEqual(['d', 'c', 'b', 'a', 'e']);
      expect(ids(await tx.orderedRecords({ ...q, tag: 't' }))).toEqual(['e', 'a', 'd']);
      expect(ids(await tx.orderedRecords({ ...q, tag: 't', order: 'desc', orderBy: 'updatedAt' }))).toEqual(['e', 'a', 'd']);
      expect(ids(await tx.orderedRecords({ ...q, layer: 'session' }))).toEqual(['a', 'c']);
      expect(ids(await tx.orderedRecords({ ...q, from: 20, to: 40 }))).toEqual(['a', 'b', 'c']);
      expect(ids(await tx.orderedRecords({ ...q, after: { time: 20, id: 'a' } }))).toEqual(['b', 'c', 'd']);
      expect(ids(await tx.orderedRecords({ ...q, order: 'desc', after: { time: 20, id: 'b' } }))).toEqual(['a', 'e']);
      expect(ids(await tx.orderedRecords({ ...q, tag: 'u', after: { time: 20, id: 'a' } }))).toEqual(['c']);
      expect(ids(await tx.orderedRecords(q, undefined, 2))).toEqual(['e', 'a']);
      const seen: string[] = [];
      const accepted = await tx.orderedRecords(
        q,
        (row) => {
          seen.push(row.id);
          return row.id !== 'a';
        },
        2,
      );
      expect(ids(accepted)).toEqual(['e', 'b']);
      expect(seen.slice(0, 3)).toEqual(['e', 'a', 'b']);
      expect(ids(await tx.orderedRecords({ ...q, tag: 'nobody' }))).toEqual([]);
    });
    // A put that changes tags and times moves the row between streams.
    await store.write((tx) => tx.putRecords([record('u=a', 'e', { createdAt: 50, updatedAt: 70, tags: ['u'] })]));
    await store.read(async (tx) => {
      expect(ids(await tx.orderedRecords({ ns: 'u=a', orderBy: 'createdAt', order: 'asc', tag: 't' }))).toEqual(['a', 'd']);
      expect(ids(await tx.orderedRecords({ ns: 'u=a', orderBy: 'createdAt', order: 'asc', tag: 'u' }))).toEqual(['a', 'c', 'e']);
    });
    await store.write((tx) => tx.deleteRecords([['u=a', 'a'], ['u=a', 'missing']]));
    expect(ids(await store.read((tx) => tx.orderedRecords({ ns: 'u=a', orderBy: 'createdAt', order: 'asc', tag: 'u' })))).toEqual(['c', 'e']);
  });

  it('of writes asked for at once, a failing one stores nothing of itself and the others are all stored', async () => {
    const store = await fresh();
    const results = await Promise.allSettled(
      ['w1', 'bad', 'w3', 'w4'].map((id) =>
        store.write(async (tx) => {
          await tx.putRecords([record('u=a', id)]);
          const [seq] = await tx.appendAudit([audit('u=a', id)]);
          if (id === 'bad') throw new ZeromemError('CONFLICT', 'refused');
          return seq;
        }),
      ),
    );
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(((results[1] as PromiseRejectedResult).reason as ZeromemError).code).toBe('CONFLICT');
    await store.read(async (tx) => {
      expect(ids(await tx.namespaceRecords('u=a'))).toEqual(['w1', 'w3', 'w4']);
      expect((await tx.auditAfter('u=a', 0)).map((row) => row.seq)).toEqual(results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<number>).value));
    });
  });

  it('writes of one process commit in the order they were asked for', async () => {
    const store = await fresh();
    await Promise.all(
      ['w1', 'w2', 'w3'].map((name, i) =>
        store.write(async (tx) => {
          for (let step = 0; step < 3 - i; step++) await tx.countRecords();
          await tx.appendAudit([audit('u=a', name)]);
        }),
      ),
    );
    expect((await store.read((tx) => tx.auditAfter('u=a', 0))).map((row) => row.id)).toEqual(['w1', 'w2', 'w3']);
  });

});

// The SQLite engine's transactions also live across awaits of other work (an IndexedDB
// transaction would commit then, so the port's callers never do it): isolation still holds.
describe('the SQLite engine, beyond the port contract', () => {
  it('a read never sees a write that has not committed, and sees it once it has', async () => {
    const store = await engines[1]![1]();
    stores.push(store);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => (written = resolve));
    const writing = store.write(async (tx) => {
      await tx.putRecords([record('u=a', 'pending')]);
      written();
      await held;
    });
    await wrote;
    expect(await store.read((tx) => tx.countRecords('u=a'))).toBe(0);
    release();
    await writing;
    expect(await store.read((tx) => tx.countRecords('u=a'))).toBe(1);
  });

  it('runs the writes of one process one after the other (none starts before the last ended), in the order they were asked for', async () => {
    const store = await engines[1]![1]();
    stores.push(store);
    const order: string[] = [];
    await Promise.all(
      ['w1', 'w2', 'w3'].map((name, i) =>
        store.write(async (tx) => {
          order.push(`${name} start`);
          for (let step = 0; step < 3 - i; step++) await tx.countRecords();
          await tx.appendAudit([audit('u=a', name)]);
          order.push(`${name} end`);
        }),
      ),
    );
    expect(order).toEqual(['w1 start', 'w1 end', 'w2 start', 'w2 end', 'w3 start', 'w3 end']);
    expect((await store.read((tx) => tx.auditAfter('u=a', 0))).map((row) => row.id)).toEqual(['w1', 'w2', 'w3']);
  });

});
