import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { openDexieStore } from '../../src/store/dexie-store.ts';
import { ZeromemError } from '../../src/model/errors.ts';
import { openSqliteStore } from '../../src/node-store/sqlite-engine.ts';
import type { AuditRow, StoragePort } from '../../src/store/port.ts';
import { toRow, type RecordRow } from '../../src/store/row.ts';
import type { MemoryRecord } from '../../src/model/types.ts';
import { expectCode } from '../helpers.ts';

/**
 * The storage port's contract (store/port.ts), the same tests on every engine: what each
 * method returns, in which order, with which cursors and limits, and that a write is all
 * or nothing.
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
      return openSqliteStore(dir, 'contract', { durability: 'relaxed' });
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

  it('pages a namespace in id order and the whole store in key order, with cursors and limits', async () => {
    const store = await fresh();
    await store.write((tx) => tx.putRecords([record('u=b', 'b2'), record('u=a', 'a3'), record('u=a', 'a1'), record('u=b', 'b1'), record('u=a', 'a2'), record('u=c', 'c1')]));
    await store.read(async (tx) => {
      expect(ids(await tx.namespaceRecords('u=a'))).toEqual(['a1', 'a2', 'a3']);
      expect(ids(await tx.namespaceRecords('u=a', { after: 'a1', limit: 1 }))).toEqual(['a2']);
      expect(ids(await tx.namespaceRecords('u=a', { after: 'a3' }))).toEqual([]);
      expect(ids(await tx.allRecords({ limit: 4 }))).toEqual(['a1', 'a2', 'a3', 'b1']);
      expect(ids(await tx.allRecords({ after: ['u=a', 'a3'], limit: 10 }))).toEqual(['b1', 'b2', 'c1']);
      expect(ids(await tx.allRecords({ after: ['u=b', 'b1'], limit: 1 }))).toEqual(['b2']);
      expect(await tx.countRecords('u=a')).toBe(3);
      expect(await tx.countRecords()).toBe(6);
      expect(await tx.countRecords('u=none')).toBe(0);
    });
  });

  it('finds rows by user, by content hash, by fact key, and content hashes in use', async () => {
    const store = await fresh();
    await store.write((tx) =>
      tx.putRecords([
        record('u=a', 'r2', { contentHash: 'same' }),
        record('u=a', 'r1', { contentHash: 'same' }),
        record('u=a|g=x', 'r3', { namespace: { userId: 'a', agentId: 'x' }, contentHash: 'same' }),
        record('u=b', 'r4', { key: 'k', validUntil: null }),
        record('u=b', 'r5', { key: 'k', validUntil: 3, closedBy: 'r4' }),
        record('u=b', 'r6', { key: 'other' }),
      ]),
    );
    await store.read(async (tx) => {
      expect(ids(await tx.userRecords('a'))).toEqual(['r1', 'r2', 'r3']);
      const byHash = await tx.recordsByContentHash([['u=a', 'same'], ['u=b', 'same'], ['u=a', 'none']]);
      expect(ids(byHash)).toEqual(['r1', 'r2']);
      expect(await tx.contentHashInUse('same')).toBe(true);
      expect(await tx.contentHashInUse('hash-r6')).toBe(true);
      expect(await tx.contentHashInUse('nobody')).toBe(false);
      expect(ids(await tx.recordsByKey('u=b', 'k'))).toEqual(['r4', 'r5']);
      expect(await tx.recordsByKey('u=a', 'k')).toEqual([]);
      expect((await tx.recordHashes()).sort((x, y) => (x.id < y.id ? -1 : 1))).toEqual([
        { ns: 'u=a', id: 'r1', contentHash: 'same' },
        { ns: 'u=a', id: 'r2', contentHash: 'same' },
        { ns: 'u=a|g=x', id: 'r3', contentHash: 'same' },
        { ns: 'u=b', id: 'r4', contentHash: 'hash-r4' },
        { ns: 'u=b', id: 'r5', contentHash: 'hash-r5' },
        { ns: 'u=b', id: 'r6', contentHash: 'hash-r6' },
      ]);
    });
  });

  it('lists expired rows in expiry order up to a limit, and counts them per namespace', async () => {
    const store = await fresh();
    await store.write((tx) => tx.putRecords([record('u=a', 'late', { expiresAt: 300 }), record('u=b', 'early', { expiresAt: 100 }), record('u=a', 'never'), record('u=a', 'mid', { expiresAt: 200 }), record('u=a', 'future', { expiresAt: 5000 })]));
    await store.read(async (tx) => {
      expect(ids(await tx.expiredRecords(300, 10))).toEqual(['early', 'mid', 'late']);
      expect(ids(await tx.expiredRecords(300, 2))).toEqual(['early', 'mid']);
      expect(await tx.countExpired('u=a', 300)).toBe(2);
      expect(await tx.countExpired('u=a', 299)).toBe(1);
      expect(await tx.countExpired('u=b', 99)).toBe(0);
    });
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

  it('finds the first namespace in a range', async () => {
    const store = await fresh();
    await store.write((tx) => tx.putRecords([record('u=b', 'x'), record('u=d', 'y', { namespace: { userId: 'd' } }), record('u=d', 'z')]));
    await store.read(async (tx) => {
      expect(await tx.firstNamespace({ from: 'u=a', to: 'u=z' })).toEqual({ ns: 'u=b', namespace: { userId: 'b' } });
      expect(await tx.firstNamespace({ from: 'u=b', to: 'u=z' })).toEqual({ ns: 'u=b', namespace: { userId: 'b' } });
      expect(await tx.firstNamespace({ from: 'u=b', fromExclusive: true, to: 'u=z' })).toEqual({ ns: 'u=d', namespace: { userId: 'd' } });
      expect(await tx.firstNamespace({ from: 'u=c', to: 'u=d' })).toEqual({ ns: 'u=d', namespace: { userId: 'd' } });
      expect(await tx.firstNamespace({ from: 'u=e', to: 'u=z' })).toBeUndefined();
    });
  });

  it('appends audit rows with ascending sequence numbers and reads them back per namespace, after a seq, with a limit, local ones only', async () => {
    const store = await fresh();
    const first = await store.write((tx) => tx.appendAudit([audit('u=a', 'r1'), audit('u=b', 'r2', { op: 'forget' }), audit('u=a', 'r3', { replicated: true, redacted: { email: 1 } })]));
    expect(first).toHaveLength(3);
    expect(first[1]! > first[0]! && first[2]! > first[1]!).toBe(true);
    const second = await store.write((tx) => tx.appendAudit([audit('u=a', 'r4', { seq: 1 })]));
    expect(second[0]! > first[2]!).toBe(true);
    await store.read(async (tx) => {
      const all = await tx.auditAfter('u=a', 0);
      expect(all.map((row) => row.id)).toEqual(['r1', 'r3', 'r4']);
      expect(all[1]).toEqual({ ...audit('u=a', 'r3', { replicated: true, redacted: { email: 1 } }), seq: first[2] });
      expect(all[0]).not.toHaveProperty('replicated');
      expect((await tx.auditAfter('u=a', first[0]!)).map((row) => row.id)).toEqual(['r3', 'r4']);
      expect((await tx.auditAfter('u=a', 0, { limit: 1 })).map((row) => row.id)).toEqual(['r1']);
      expect((await tx.auditAfter('u=a', 0, { localOnly: true })).map((row) => row.id)).toEqual(['r1', 'r4']);
      expect(await tx.lastAuditSeq('u=a')).toBe(second[0]);
      expect(await tx.lastAuditSeq('u=b')).toBe(first[1]);
      expect(await tx.lastAuditSeq('u=none')).toBe(0);
    });
  });

  it('keeps vectors by model and content hash (a null vector too) and deletes a hash of every model', async () => {
    const store = await fresh();
    const v = Float32Array.from([0.25, -0.5, 1]);
    await store.write((tx) =>
      tx.putVectors([
        { model: 'm1', hash: 'h1', vector: v },
        { model: 'm1', hash: 'h2', vector: null },
        { model: 'm2', hash: 'h1', vector: Float32Array.from([1, 0]) },
      ]),
    );
    await store.read(async (tx) => {
      const got = await tx.getVectors('m1', ['h2', 'none', 'h1']);
      expect(got[0]).toEqual({ model: 'm1', hash: 'h2', vector: null });
      expect(got[1]).toBeUndefined();
      expect(got[2]!.vector).toBeInstanceOf(Float32Array);
      expect([...got[2]!.vector!]).toEqual([0.25, -0.5, 1]);
      expect(await tx.countVectors('m1')).toBe(2);
      expect((await tx.vectorHashes('m1')).sort()).toEqual(['h1', 'h2']);
    });
    await store.write((tx) => tx.deleteVectors('h1'));
    await store.read(async (tx) => {
      expect(await tx.getVectors('m2', ['h1'])).toEqual([undefined]);
      expect(await tx.vectorHashes('m1')).toEqual(['h2']);
    });
  });

  it('keeps one index snapshot per namespace, typed arrays included, and deletes them', async () => {
    const store = await fresh();
    const snapshot = { ns: 'u=a', lastSeq: 7, ids: ['a', 'b'], packed: Int8Array.from([1, -2, 3]), norms: Float32Array.from([0.5]) };
    await store.write((tx) => tx.putSnapshot(snapshot));
    await store.write((tx) => tx.putSnapshot({ ns: 'u=b', lastSeq: 1 }));
    const got = (await store.read((tx) => tx.getSnapshot('u=a'))) as unknown as typeof snapshot;
    expect(got).toEqual(snapshot);
    expect(got.packed).toBeInstanceOf(Int8Array);
    await store.write((tx) => tx.putSnapshot({ ...snapshot, lastSeq: 9 }));
    expect((await store.read((tx) => tx.getSnapshot('u=a')))?.lastSeq).toBe(9);
    await store.write((tx) => tx.deleteSnapshots(['u=a', 'u=a', 'u=none']));
    expect(await store.read((tx) => tx.getSnapshot('u=a'))).toBeUndefined();
    expect(await store.read((tx) => tx.getSnapshot('u=b'))).toEqual({ ns: 'u=b', lastSeq: 1 });
  });

  it('a write is all or nothing: when its function throws, nothing of it is stored and the error reaches the caller unchanged', async () => {
    const store = await fresh();
    await store.write((tx) => tx.putRecords([record('u=a', 'kept')]));
    const failure = new ZeromemError('CONFLICT', 'the caller refused');
    const err = await store
      .write(async (tx) => {
        await tx.putRecords([record('u=a', 'lost'), record('u=a', 'kept', { content: 'changed' })]);
        await tx.appendAudit([audit('u=a', 'lost')]);
        await tx.putVectors([{ model: 'm', hash: 'h', vector: null }]);
        await tx.deleteRecords([['u=a', 'kept']]);
        throw failure;
      })
      .catch((e: unknown) => e);
    expect(err).toBe(failure);
    await store.read(async (tx) => {
      expect(ids(await tx.namespaceRecords('u=a'))).toEqual(['kept']);
      expect((await tx.getRecords([['u=a', 'kept']]))[0]!.content).toBe('content of kept');
      expect(await tx.auditAfter('u=a', 0)).toEqual([]);
      expect(await tx.countVectors('m')).toBe(0);
    });
    // And the store goes on.
    expect(await store.write(async (tx) => (await tx.appendAudit([audit('u=a', 'next')])).length)).toBe(1);
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

  it('observers run now and after each commit; audit listeners after commits that appended to the audit log', async () => {
    const store = await fresh();
    const counts: number[] = [];
    let audits = 0;
    const next = () => new Promise<void>((resolve) => setTimeout(resolve, 20));
    const stop = store.observe(() => store.read((tx) => tx.countRecords('u=a')), { next: (n) => counts.push(n), error: (err) => { throw err; } });
    const stopAudits = store.onAuditWrites(() => audits++);
    await next();
    await store.write((tx) => tx.putRecords([record('u=a', 'r1')]));
    await next();
    await store.write((tx) => tx.appendAudit([audit('u=a', 'r1')]));
    await next();
    expect(counts[0]).toBe(0);
    expect(counts.at(-1)).toBe(1);
    expect(audits).toBe(1);
    stop();
    stopAudits();
    await store.write(async (tx) => {
      await tx.putRecords([record('u=a', 'r2')]);
      await tx.appendAudit([audit('u=a', 'r2')]);
    });
    await next();
    expect(counts.at(-1)).toBe(1);
    expect(audits).toBe(1);
  });

  it('after close, reads and writes fail with CLOSED', async () => {
    const store = await fresh();
    store.close();
    await expectCode(store.read((tx) => tx.countRecords()), 'CLOSED');
    await expectCode(store.write((tx) => tx.putRecords([])), 'CLOSED');
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
