import { afterEach, describe, expect, it } from 'vitest';
import type { Memory } from '../src/index.ts';
import { replicaOf, type ReplicatedRecord } from '../src/internal.ts';
import { expectCode, openTestMemory } from './helpers.ts';

const NS = { userId: 'alice', scope: 'shared' };
let open: Memory[] = [];
afterEach(async () => {
  for (const memory of open.splice(0)) await memory.close();
});

async function fresh() {
  const test = await openTestMemory();
  open.push(test.memory);
  return test;
}

function state(overrides: Partial<ReplicatedRecord> = {}): ReplicatedRecord {
  return {
    id: 'r1',
    content: 'Prefers green tea',
    source: 'user',
    layer: 'long_term',
    tags: ['drinks'],
    metadata: { from: 'phone' },
    importance: 0.7,
    createdAt: Date.UTC(2025, 5, 1),
    updatedAt: Date.UTC(2025, 5, 2),
    expiresAt: null,
    version: 3,
    mergedFrom: [],
    key: null,
    validFrom: null,
    statedUntil: null,
    ...overrides,
  };
}

describe('replicaOf(memory).apply', () => {
  it('stores a record as the other replica decided it, audited as replicated, and finds it in recall', async () => {
    const { memory } = await fresh();
    const result = await replicaOf(memory).apply(NS, [{ put: state() }], { after: 0 });
    expect(result.stale).toBe(false);
    expect(result.rejected).toEqual([]);
    const stored = await memory.get(NS, 'r1');
    expect(stored).toMatchObject({ ...state(), accessCount: 0, lastAccessedAt: null });
    expect(stored!.contentHash).toMatch(/^[0-9a-f]{64}$/);
    const log = await memory.audit(NS);
    expect(log).toEqual([expect.objectContaining({ op: 'remember', id: 'r1', replicated: true })]);
    expect(result.lastSeq).toBe(log[0]!.seq);
    expect((await memory.recall(NS, 'green tea')).hits.map((h) => h.record.id)).toEqual(['r1']);
  });

  it('writes nothing and audits nothing for a state it already holds', async () => {
    const { memory } = await fresh();
    const first = await replicaOf(memory).apply(NS, [{ put: state() }], { after: 0 });
    const again = await replicaOf(memory).apply(NS, [{ put: state() }], { after: first.lastSeq });
    expect(again.written).toEqual([]);
    expect(await memory.audit(NS)).toHaveLength(1);
  });

  it('rejects an invalid change by position and writes the valid ones', async () => {
    const { memory } = await fresh();
    const bad = { ...state({ id: 'r2' }), content: '' };
    const result = await replicaOf(memory).apply(NS, [{ put: bad }, { put: state() }, { put: { ...state({ id: 'r3' }), extra: 1 } as ReplicatedRecord }, { delete: '../x' }], { after: 0 });
    expect(result.rejected.map((r) => [r.index, r.issues[0]!.path])).toEqual([
      [0, 'put.content'],
      [2, 'put.extra'],
      [3, 'delete'],
    ]);
    expect(result.written.map((r) => r.id)).toEqual(['r1']);
    expect(await memory.get(NS, 'r2')).toBeUndefined();
    expect(await memory.count(NS)).toBe(1);
  });

  it('carries consolidation provenance (mergedFrom) and keeps the tier of this device', async () => {
    const { memory } = await fresh();
    const first = await replicaOf(memory).apply(NS, [{ put: state({ mergedFrom: ['r7', 'r8'] }) }], { after: 0 });
    expect(await memory.get(NS, 'r1')).toMatchObject({ mergedFrom: ['r7', 'r8'], tier: 'hot' });
    const bad = await replicaOf(memory).apply(NS, [{ put: state({ id: 'r2', mergedFrom: ['ok', '../no'] }) }, { put: { ...state({ id: 'r3' }), mergedFrom: 'r1' as never } }], { after: first.lastSeq });
    expect(bad.stale).toBe(false);
    // 32 tags x 32: a bound, so a hostile replica cannot send millions of ids.
    const huge = await replicaOf(memory).apply(NS, [{ put: state({ id: 'r4', mergedFrom: Array.from({ length: 1025 }, (_, i) => `m${i}`) }) }], { after: first.lastSeq });
    expect(huge.rejected.map((r) => r.issues[0]!.path)).toEqual(['put.mergedFrom']);
    expect(await memory.get(NS, 'r4')).toBeUndefined();
    expect(bad.rejected.map((r) => [r.index, r.issues[0]!.path])).toEqual([
      [0, 'put.mergedFrom.1'],
      [1, 'put.mergedFrom'],
    ]);
  });

  it('is stale, applying nothing, while a local change after `after` is unseen', async () => {
    const { memory } = await fresh();
    const local = await memory.remember({ namespace: NS, content: 'local fact' });
    const result = await replicaOf(memory).apply(NS, [{ delete: local.id }], { after: 0 });
    expect(result.stale).toBe(true);
    expect(await memory.get(NS, local.id)).toBeDefined();
    const seen = (await memory.audit(NS)).at(-1)!.seq;
    expect((await replicaOf(memory).apply(NS, [{ delete: local.id }], { after: seen })).deleted).toEqual([local.id]);
  });

  it('a replicated delete removes the record from the store and from recall', async () => {
    const { memory, dump } = await fresh();
    const first = await replicaOf(memory).apply(NS, [{ put: state({ content: 'secret plan zebra' }) }], { after: 0 });
    expect((await memory.recall(NS, 'zebra')).hits).toHaveLength(1);
    const gone = await replicaOf(memory).apply(NS, [{ delete: 'r1' }], { after: first.lastSeq });
    expect(gone.deleted).toEqual(['r1']);
    expect((await memory.recall(NS, 'zebra')).hits).toHaveLength(0);
    expect(await dump()).not.toContain('zebra');
  });

  it('stores the document updates it is given in the same transaction as the changes, stale or not', async () => {
    const { memory } = await fresh();
    const replica = replicaOf(memory);
    const room = 'u=alice;s=shared';
    const applied = await replica.apply(NS, [{ put: state() }], { after: 0, docLog: { room, updates: [new Uint8Array([1, 2]), new Uint8Array([3])] } });
    expect(applied.docLogSize).toBe(2);
    expect(await memory.get(NS, 'r1')).toBeDefined();
    // A stale call applies nothing, yet the updates it was given are stored: they came from the document, which holds them already.
    await memory.remember({ namespace: NS, content: 'local fact' });
    const stale = await replica.apply(NS, [{ delete: 'r1' }], { after: applied.lastSeq, docLog: { room, updates: [new Uint8Array([4])] } });
    expect(stale.stale).toBe(true);
    expect(stale.docLogSize).toBe(3);
    expect((await replica.docLog.load(room)).updates.map((u) => [...u])).toEqual([[1, 2], [3], [4]]);
    // Without docLog nothing is said about it.
    expect((await replica.apply(NS, [], { after: stale.lastSeq })).docLogSize).toBeUndefined();
    // A bad docLog is refused before anything is written.
    await expectCode(replica.apply(NS, [{ put: state({ id: 'r2' }) }], { after: stale.lastSeq, docLog: { room, updates: ['x'] } as never }), 'INVALID_INPUT', 'docLog');
    expect(await memory.get(NS, 'r2')).toBeUndefined();
  });

  it('answers bad arguments with coded errors', async () => {
    const { memory } = await fresh();
    await expectCode(replicaOf(memory).apply(NS, [], { after: -1 }), 'INVALID_INPUT', 'after');
    await expectCode(replicaOf(memory).apply(NS, 'x' as never, { after: 0 }), 'INVALID_INPUT');
    await expectCode(replicaOf(memory).apply(undefined as never, [], { after: 0 }), 'NAMESPACE_REQUIRED');
  });
});
