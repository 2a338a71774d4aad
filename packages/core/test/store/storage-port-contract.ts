import { describe, expect, it } from 'vitest';
import { ZeromemError } from '../../src/public/errors.ts';
import { namespaceKey } from '../../src/model/namespace.ts';
import type { Layer, Namespace } from '../../src/public/memory-record.ts';
import { heatKey, type AuditRow, type OrderedQuery, type StoragePort } from '../../src/store/port.ts';
import { toRow, type RecordRow } from '../../src/store/row.ts';
import { expectCode } from '../helpers.ts';

/**
 * The storage port's contract (src/store/port.ts), as tests any engine runs: call it with
 * the engine's name and a function that opens a fresh, empty store of it.
 */
export function describeStoragePort(engine: string, openStore: () => Promise<StoragePort>): void {
  const U1: Namespace = { userId: 'u1' };
  const U1A: Namespace = { userId: 'u1', agentId: 'a' };
  const U10: Namespace = { userId: 'u10' };

  /** A row of `namespace` as `remember` would store it; `fields` override the defaults. */
  function row(namespace: Namespace, id: string, fields: Partial<RecordRow> = {}): RecordRow {
    const base = toRow({
      id,
      namespace,
      namespaceKey: namespaceKey(namespace),
      content: `content of ${id}`,
      source: 'user',
      layer: fields.layer ?? 'long_term',
      tags: fields.tags ?? [],
      metadata: {},
      importance: 0.5,
      createdAt: fields.createdAt ?? 1000,
      updatedAt: fields.updatedAt ?? fields.createdAt ?? 1000,
      expiresAt: fields.expiresAt ?? null,
      accessCount: 0,
      lastAccessedAt: null,
      contentHash: fields.contentHash ?? `hash-${id}`,
      version: 1,
      tier: 'hot',
      mergedFrom: [],
      key: null,
      validFrom: null,
      validUntil: null,
      closedBy: null,
      statedUntil: null,
    });
    return { ...base, ...fields };
  }

  function audit(namespace: Namespace, id: string, fields: Partial<AuditRow> = {}): AuditRow {
    return { ns: namespaceKey(namespace), op: 'remember', id, namespace, at: 1, actor: 'test', ...fields };
  }

  const ids = (rows: Array<RecordRow | undefined>) => rows.map((r) => r && `${r.ns}/${r.id}`);

  async function withStore(fn: (store: StoragePort) => Promise<void>): Promise<void> {
    const store = await openStore();
    try {
      await fn(store);
    } finally {
      await store.close();
    }
  }

  describe(`storage port contract: ${engine}`, () => {
    it('gets records by key in the order asked, undefined where none; a put replaces, a delete of a missing key is no error', () =>
      withStore(async (store) => {
        const ns = namespaceKey(U1);
        await store.write((tx) => tx.putRecords([row(U1, 'b'), row(U1, 'a'), row(U10, 'a')]));
        await store.write((tx) => tx.putRecords([row(U1, 'a', { content: 'changed' })]));
        const got = await store.read((tx) => tx.getRecords([[ns, 'a'], [ns, 'zz'], [namespaceKey(U10), 'a'], [ns, 'b']]));
        expect(ids(got)).toEqual([`${ns}/a`, undefined, `${namespaceKey(U10)}/a`, `${ns}/b`]);
        expect(got[0]!.content).toBe('changed');
        await store.write((tx) => tx.deleteRecords([[ns, 'a'], [ns, 'missing']]));
        expect(ids(await store.read((tx) => tx.getRecords([[ns, 'a'], [ns, 'b']])))).toEqual([undefined, `${ns}/b`]);
      }));

    it('pages a namespace in id order after an id, and the whole store in key order after a key', () =>
      withStore(async (store) => {
        await store.write((tx) => tx.putRecords([row(U1, 'c'), row(U1, 'a'), row(U1A, 'a'), row(U1, 'b'), row(U10, 'a')]));
        const ns = namespaceKey(U1);
        expect(ids(await store.read((tx) => tx.namespaceRecords(ns)))).toEqual([`${ns}/a`, `${ns}/b`, `${ns}/c`]);
        expect(ids(await store.read((tx) => tx.namespaceRecords(ns, { after: 'a', limit: 1 })))).toEqual([`${ns}/b`]);
        expect(ids(await store.read((tx) => tx.namespaceRecords(ns, { after: 'c' })))).toEqual([]);
        const all = await store.read((tx) => tx.allRecords({ limit: 10 }));
        const keys = all.map((r) => [r.ns, r.id] as const);
        expect(keys).toEqual([...keys].sort((x, y) => (x[0] === y[0] ? (x[1] < y[1] ? -1 : 1) : x[0] < y[0] ? -1 : 1)));
        expect(all).toHaveLength(5);
        expect(ids(await store.read((tx) => tx.allRecords({ after: keys[1], limit: 2 })))).toEqual(ids(all.slice(2, 4)));
      }));

    it("reads a user's rows in all of their namespaces and no other user's", () =>
      withStore(async (store) => {
        await store.write((tx) => tx.putRecords([row(U1, 'a'), row(U1A, 'b'), row(U10, 'c')]));
        expect((await store.read((tx) => tx.userRecords('u1'))).map((r) => r.id).sort()).toEqual(['a', 'b']);
      }));

    it('finds rows by [namespace, content hash], several per pair in id order, for a few pairs and for many', () =>
      withStore(async (store) => {
        const ns = namespaceKey(U1);
        await store.write((tx) => tx.putRecords([row(U1, 'b', { contentHash: 'h1' }), row(U1, 'a', { contentHash: 'h1' }), row(U1, 'c', { contentHash: 'h2' }), row(U10, 'd', { contentHash: 'h1' })]));
        expect((await store.read((tx) => tx.recordsByContentHash([[ns, 'h1']]))).map((r) => r.id)).toEqual(['a', 'b']);
        expect(await store.read((tx) => tx.recordsByContentHash([]))).toEqual([]);
        // More pairs than the namespace has rows (an engine may read them another way).
        const many: Array<readonly [string, string]> = [...Array.from({ length: 40 }, (_, i) => [ns, `x${i}`] as const), [ns, 'h2'], [ns, 'h1']];
        const found = await store.read((tx) => tx.recordsByContentHash(many));
        expect(found.filter((r) => r.contentHash === 'h1').map((r) => r.id)).toEqual(['a', 'b']);
        expect(found.map((r) => r.id).sort()).toEqual(['a', 'b', 'c']);
      }));

    it('says which of some content hashes any namespace holds, and lists every key with its hash', () =>
      withStore(async (store) => {
        await store.write((tx) => tx.putRecords([row(U1, 'a', { contentHash: 'h1' }), row(U10, 'b', { contentHash: 'h2' })]));
        expect(await store.read((tx) => tx.contentHashesInUse(['h2', 'h3', 'h2']))).toEqual(new Set(['h2']));
        expect(await store.read((tx) => tx.contentHashesInUse([]))).toEqual(new Set());
        const many = Array.from({ length: 150 }, (_, i) => `x${i}`); // more than one lookup's worth
        expect(await store.read((tx) => tx.contentHashesInUse([...many, 'h1']))).toEqual(new Set(['h1']));
        const hashes = await store.read((tx) => tx.recordHashes());
        expect(hashes.sort((x, y) => (x.id < y.id ? -1 : 1))).toEqual([
          { ns: namespaceKey(U1), id: 'a', contentHash: 'h1' },
          { ns: namespaceKey(U10), id: 'b', contentHash: 'h2' },
        ]);
      }));

    it('reads expired rows in expiry order up to a limit, and counts rows and expired rows', () =>
      withStore(async (store) => {
        const ns = namespaceKey(U1);
        await store.write((tx) => tx.putRecords([row(U1, 'a', { expiresAt: 30 }), row(U1, 'b', { expiresAt: 10 }), row(U10, 'c', { expiresAt: 20 }), row(U1, 'd', { expiresAt: 99 }), row(U1, 'e')]));
        expect((await store.read((tx) => tx.expiredRecords(30, 2))).map((r) => r.id)).toEqual(['b', 'c']);
        expect((await store.read((tx) => tx.expiredRecords(30, 10))).map((r) => r.id)).toEqual(['b', 'c', 'a']);
        expect(await store.read((tx) => tx.countRecords(ns))).toBe(4);
        expect(await store.read((tx) => tx.countRecords())).toBe(5);
        expect(await store.read((tx) => tx.countExpired(ns, 30))).toBe(2);
        expect(await store.read((tx) => tx.countExpired(ns, 5))).toBe(0);
      }));

    it('pages a namespace by created or updated time, either way, by tag or layer, between times, after a position', () =>
      withStore(async (store) => {
        const ns = namespaceKey(U1);
        const layers: Layer[] = ['session', 'long_term', 'session', 'knowledge', 'session'];
        await store.write((tx) =>
          tx.putRecords([
            ...layers.map((layer, i) => row(U1, `r${i}`, { layer, createdAt: 100 + i * 10, updatedAt: 500 - i * 10, tags: i % 2 ? ['odd'] : ['even'] })),
            row(U1, 'r5', { createdAt: 120, tags: ['even'] }), // same time as r2: the id orders them
            row(U10, 'other', { createdAt: 110, layer: 'session', tags: ['odd'] }),
          ]),
        );
        const page = (query: Partial<OrderedQuery>, accept?: (r: RecordRow) => boolean, limit?: number) =>
          store.read(async (tx) => (await tx.orderedRecords({ ns, orderBy: 'createdAt', order: 'asc', ...query }, accept, limit)).map((r) => r.id));
        expect(await page({})).toEqual(['r0', 'r1', 'r2', 'r5', 'r3', 'r4']);
        expect(await page({ order: 'desc' })).toEqual(['r4', 'r3', 'r5', 'r2', 'r1', 'r0']);
        expect(await page({ orderBy: 'updatedAt' })).toEqual(['r5', 'r4', 'r3', 'r2', 'r1', 'r0']);
        expect(await page({ tag: 'odd' })).toEqual(['r1', 'r3']);
        expect(await page({ layer: 'session', order: 'desc' })).toEqual(['r4', 'r2', 'r0']);
        expect(await page({ from: 110, to: 130 })).toEqual(['r1', 'r2', 'r5']);
        expect(await page({ after: { time: 120, id: 'r2' } })).toEqual(['r5', 'r3', 'r4']);
        expect(await page({ order: 'desc', after: { time: 120, id: 'r5' } })).toEqual(['r2', 'r1', 'r0']);
        expect(await page({ layer: 'session', after: { time: 100, id: 'r0' }, to: 140 })).toEqual(['r2']);
        expect(await page({ tag: 'even', order: 'desc', after: { time: 140, id: 'r4' }, from: 110 })).toEqual(['r5', 'r2']);
        // The limit counts accepted rows only.
        expect(await page({}, (r) => r.id !== 'r0' && r.id !== 'r1', 2)).toEqual(['r2', 'r5']);
      }));

    it('reads the rows of a keyed fact, none of the rows without a key', () =>
      withStore(async (store) => {
        const ns = namespaceKey(U1);
        await store.write((tx) => tx.putRecords([row(U1, 'b', { key: 'city' }), row(U1, 'a', { key: 'city', validUntil: 5 }), row(U1, 'c', { key: 'car' }), row(U1, 'd'), row(U10, 'e', { key: 'city' })]));
        expect((await store.read((tx) => tx.recordsByKey(ns, 'city'))).map((r) => r.id)).toEqual(['a', 'b']);
        expect(await store.read((tx) => tx.recordsByKey(ns, 'none'))).toEqual([]);
        expect((await store.read((tx) => tx.keyedRecords(ns))).map((r) => r.id)).toEqual(['c', 'a', 'b']);
        expect(await store.read((tx) => tx.keyedRecords(namespaceKey({ userId: 'nobody' })))).toEqual([]);
      }));

    it('finds the first namespace holding a row in a key range, from included or not, to included', () =>
      withStore(async (store) => {
        await store.write((tx) => tx.putRecords([row(U1, 'a'), row(U1A, 'a'), row(U10, 'a')]));
        const first = (range: { from: string; fromExclusive?: boolean; to: string }) => store.read(async (tx) => (await tx.firstNamespace(range))?.ns);
        expect(await first({ from: '', to: '\uffff' })).toBe(namespaceKey(U1));
        // Key order, not namespace depth: 'u=u10' sorts before 'u=u1;a=a'.
        expect(await first({ from: namespaceKey(U1), fromExclusive: true, to: '\uffff' })).toBe(namespaceKey(U10));
        expect(await first({ from: namespaceKey(U10), fromExclusive: true, to: '\uffff' })).toBe(namespaceKey(U1A));
        expect(await first({ from: namespaceKey(U1A), to: namespaceKey(U1A) })).toBe(namespaceKey(U1A));
        expect(await first({ from: namespaceKey(U1A), fromExclusive: true, to: namespaceKey(U1A) })).toBeUndefined();
        expect(await store.read((tx) => tx.firstNamespace({ from: namespaceKey(U10), to: namespaceKey(U10) }))).toEqual({ ns: namespaceKey(U10), namespace: U10 });
      }));

    it('appends audit rows with ascending seqs and reads a namespace after a seq, limited, local only', () =>
      withStore(async (store) => {
        const ns = namespaceKey(U1);
        expect(await store.read((tx) => tx.lastAuditSeq(ns))).toBe(0);
        const seqs = await store.write((tx) => tx.appendAudit([audit(U1, 'a'), audit(U10, 'x'), audit(U1, 'b', { replicated: true }), audit(U1, 'c')]));
        expect(seqs).toHaveLength(4);
        expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
        expect(new Set(seqs).size).toBe(4);
        expect(await store.write((tx) => tx.appendAudit([]))).toEqual([]);
        expect((await store.read((tx) => tx.auditAfter(ns, 0))).map((r) => [r.id, r.seq])).toEqual([['a', seqs[0]], ['b', seqs[2]], ['c', seqs[3]]]);
        expect((await store.read((tx) => tx.auditAfter(ns, seqs[0]!, { limit: 1 }))).map((r) => r.id)).toEqual(['b']);
        expect((await store.read((tx) => tx.auditAfter(ns, seqs[0]!, { limit: 1, localOnly: true }))).map((r) => r.id)).toEqual(['c']);
        expect(await store.read((tx) => tx.lastAuditSeq(ns))).toBe(seqs[3]);
        const [next] = await store.write((tx) => tx.appendAudit([audit(U10, 'y')]));
        expect(next).toBeGreaterThan(seqs[3]!);
      }));

    it('writes, replaces and finds many rows in one call (more than an engine may bind in one statement), audit seqs in order', () =>
      withStore(async (store) => {
        const ns = namespaceKey(U1);
        const n = 150; // over two batches of 64 and a rest
        const id = (i: number) => `r${String(i).padStart(3, '0')}`;
        await store.write((tx) => tx.putRecords(Array.from({ length: n }, (_, i) => row(U1, id(i), { contentHash: `h${i % 100}`, tags: i % 7 === 0 ? ['seven'] : [] }))));
        // Replace every third row and add ten more, in one call.
        const replaced = Array.from({ length: n / 3 }, (_, i) => row(U1, id(3 * i), { content: `changed ${3 * i}`, contentHash: `h${3 * i % 100}`, tags: [] }));
        await store.write((tx) => tx.putRecords([...replaced, ...Array.from({ length: 10 }, (_, i) => row(U1, id(n + i), { contentHash: `new${i}` }))]));
        const all = await store.read((tx) => tx.namespaceRecords(ns));
        expect(all.map((r) => r.id)).toEqual(Array.from({ length: n + 10 }, (_, i) => id(i)));
        expect(all.filter((r) => r.content.startsWith('changed')).map((r) => r.id)).toEqual(replaced.map((r) => r.id));
        expect((await store.read((tx) => tx.orderedRecords({ ns, orderBy: 'createdAt', order: 'asc', tag: 'seven' }))).map((r) => r.id)).toEqual(
          all.filter((r, i) => i < n && i % 7 === 0 && i % 3 !== 0).map((r) => r.id),
        );
        // 130 pairs (30 of no row): each row of a pair, in id order.
        const pairs = Array.from({ length: 130 }, (_, i) => [ns, i < 100 ? `h${i}` : `none${i}`] as const);
        const found = await store.read((tx) => tx.recordsByContentHash(pairs));
        const byHash = new Map<string, string[]>();
        for (const r of found) byHash.set(r.contentHash, [...(byHash.get(r.contentHash) ?? []), r.id]);
        expect(byHash.get('h5')).toEqual([id(5), id(105)]);
        expect([...byHash.values()].flat().sort()).toEqual(Array.from({ length: n }, (_, i) => id(i)));
        const seqs = await store.write((tx) => tx.appendAudit(Array.from({ length: n }, (_, i) => audit(U1, id(i)))));
        expect(seqs).toHaveLength(n);
        expect(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!)).toBe(true);
        expect((await store.read((tx) => tx.auditAfter(ns, 0))).map((r) => [r.id, r.seq])).toEqual(seqs.map((seq, i) => [id(i), seq]));
      }));

    it('keeps vectors by [model, hash]: get in order, count and list a model, delete a hash of every model', () =>
      withStore(async (store) => {
        const v = new Float32Array([0.6, 0.8]);
        await store.write((tx) => tx.putVectors([{ model: 'm1', hash: 'h1', vector: v }, { model: 'm1', hash: 'h2', vector: null }, { model: 'm2', hash: 'h1', vector: v }]));
        const got = await store.read((tx) => tx.getVectors('m1', ['h2', 'h3', 'h1']));
        expect(got.map((r) => r?.hash)).toEqual(['h2', undefined, 'h1']);
        expect(got[2]!.vector).toEqual(v);
        expect(got[0]!.vector).toBeNull();
        expect(await store.read((tx) => tx.countVectors('m1'))).toBe(2);
        expect((await store.read((tx) => tx.vectorHashes('m1'))).sort()).toEqual(['h1', 'h2']);
        await store.write((tx) => tx.deleteVectors('h1'));
        expect(await store.read((tx) => tx.vectorHashes('m2'))).toEqual([]);
        expect(await store.read((tx) => tx.vectorHashes('m1'))).toEqual(['h2']);
      }));

    it('gets many vectors at once in the order asked: SHA-256 hex hashes and others, repeats, hits and misses', () =>
      withStore(async (store) => {
        const hex = (i: number) => i.toString(16).padStart(64, '0');
        const stored = Array.from({ length: 150 }, (_, i) => ({ model: 'm1', hash: i % 3 ? hex(i) : `h${i}`, vector: i % 7 ? new Float32Array([i, 1]) : null }));
        await store.write((tx) => tx.putVectors(stored.filter((_, i) => i % 2 === 0)));
        const asked = [...stored.map((row) => row.hash).reverse(), hex(0), 'h0', hex(4).toUpperCase()];
        const got = await store.read((tx) => tx.getVectors('m1', asked));
        const expected = asked.map((hash) => stored.find((row, i) => i % 2 === 0 && row.hash === hash));
        expect(got.map((row) => row && { hash: row.hash, vector: row.vector && [...row.vector] })).toEqual(expected.map((row) => row && { hash: row.hash, vector: row.vector && [...row.vector] }));
        expect(await store.read((tx) => tx.getVectors('m2', asked.slice(0, 3)))).toEqual([undefined, undefined, undefined]);
      }));

    it('keeps one index snapshot per namespace', () =>
      withStore(async (store) => {
        await store.write((tx) => tx.putSnapshot({ ns: 'n1', lastSeq: 1, postings: new Uint32Array([1, 2]) } as { ns: string; lastSeq: number }));
        await store.write((tx) => tx.putSnapshot({ ns: 'n1', lastSeq: 2 }));
        await store.write((tx) => tx.putSnapshot({ ns: 'n2', lastSeq: 3 }));
        // Each beside its access-statistics row, which goes with it.
        await store.write(async (tx) => {
          await tx.putSnapshot({ ns: heatKey('n1'), lastSeq: 2 });
          await tx.putSnapshot({ ns: heatKey('n2'), lastSeq: 3 });
        });
        expect(await store.read((tx) => tx.getSnapshot('n1'))).toEqual({ ns: 'n1', lastSeq: 2 });
        await store.write((tx) => tx.deleteSnapshots(['n1', 'n1', 'n3']));
        expect(await store.read((tx) => tx.getSnapshot('n1'))).toBeUndefined();
        expect(await store.read((tx) => tx.getSnapshot(heatKey('n1')))).toBeUndefined();
        expect(await store.read((tx) => tx.getSnapshot('n2'))).toEqual({ ns: 'n2', lastSeq: 3 });
        expect(await store.read((tx) => tx.getSnapshot(heatKey('n2')))).toEqual({ ns: heatKey('n2'), lastSeq: 3 });
      }));

    it('keeps a document log per room: updates in append order with a cursor, compacted into one', () =>
      withStore(async (store) => {
        const bytes = (...values: number[]) => new Uint8Array(values);
        expect(await store.read((tx) => tx.getDocLog('r1'))).toEqual({ updates: [], cursor: undefined });
        expect(await store.write((tx) => tx.appendDocLog('r1', [bytes(1), bytes(2, 3)]))).toBe(2);
        expect(await store.write((tx) => tx.appendDocLog('r2', [bytes(9)], 7))).toBe(1);
        expect(await store.write((tx) => tx.appendDocLog('r1', [bytes(4)], 5))).toBe(3);
        expect(await store.write((tx) => tx.appendDocLog('r1', [], 6))).toBe(3); // only the cursor moves
        const log = await store.read((tx) => tx.getDocLog('r1'));
        expect(log.updates.map((update) => [...update])).toEqual([[1], [2, 3], [4]]);
        expect(log.updates.every((update) => update instanceof Uint8Array)).toBe(true);
        expect(log.cursor).toBe(6);
        await store.write((tx) => tx.compactDocLog('r1', bytes(1, 2, 3, 4)));
        const compacted = await store.read((tx) => tx.getDocLog('r1'));
        expect({ updates: compacted.updates.map((update) => [...update]), cursor: compacted.cursor }).toEqual({ updates: [[1, 2, 3, 4]], cursor: 6 });
        expect(await store.write((tx) => tx.appendDocLog('r1', [bytes(5)]))).toBe(2);
        expect((await store.read((tx) => tx.getDocLog('r1'))).updates.map((update) => [...update])).toEqual([[1, 2, 3, 4], [5]]);
        const other = await store.read((tx) => tx.getDocLog('r2'));
        expect({ updates: other.updates.map((update) => [...update]), cursor: other.cursor }).toEqual({ updates: [[9]], cursor: 7 });
        // All or nothing with the rest of a write.
        await expect(
          store.write(async (tx) => {
            await tx.appendDocLog('r2', [bytes(10)], 8);
            throw new ZeromemError('CONFLICT', 'no');
          }),
        ).rejects.toThrow('no');
        expect((await store.read((tx) => tx.getDocLog('r2'))).cursor).toBe(7);
      }));

    it('stores nothing of a write whose function throws, and hands the error on unchanged', () =>
      withStore(async (store) => {
        const failure = new ZeromemError('CONFLICT', 'changed since read');
        const outcome = store.write(async (tx) => {
          await tx.putRecords([row(U1, 'a')]);
          await tx.appendAudit([audit(U1, 'a')]);
          throw failure;
        });
        await expect(outcome).rejects.toBe(failure);
        expect(await store.read((tx) => tx.countRecords())).toBe(0);
        expect(await store.read((tx) => tx.lastAuditSeq(namespaceKey(U1)))).toBe(0);
      }));

    it('keeps a write one transaction when it first awaits something with nothing to do', () =>
      withStore(async (store) => {
        const outcome = store.write(async (tx) => {
          await tx.putRecords([]); // nothing to store: no request
          await tx.deleteSnapshots([]);
          await tx.putRecords([row(U1, 'a')]);
          await tx.appendAudit([audit(U1, 'a')]);
          throw new ZeromemError('CONFLICT', 'abort');
        });
        await expect(outcome).rejects.toThrow('abort');
        expect(await store.read((tx) => tx.countRecords())).toBe(0);
        expect(await store.write(async (tx) => (await tx.putRecords([]), tx.getRecords([[namespaceKey(U1), 'a']])))).toEqual([undefined]);
      }));

    it('tells observers and audit listeners of committed writes', () =>
      withStore(async (store) => {
        const seen: number[] = [];
        let audited = 0;
        const stopAudit = store.onAuditWrites(() => audited++);
        const stop = store.observe(() => store.read((tx) => tx.countRecords()), { next: (n) => seen.push(n), error: (err) => { throw err; } });
        await expect.poll(() => seen).toEqual([0]);
        await store.write(async (tx) => {
          await tx.putRecords([row(U1, 'a')]);
          await tx.appendAudit([audit(U1, 'a')]);
        });
        await expect.poll(() => seen.at(-1)).toBe(1);
        await expect.poll(() => audited).toBeGreaterThanOrEqual(1);
        stop();
        stopAudit();
      }));

    it('fails with CLOSED after close', async () => {
      const store = await openStore();
      await store.close();
      await expectCode(store.read((tx) => tx.countRecords()), 'CLOSED');
      await expectCode(store.write((tx) => tx.putRecords([row(U1, 'a')])), 'CLOSED');
    });
  });
}
