import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it, vi } from 'vitest';
import { openMemory } from '../../../src/index.node.ts';
import { replicaOf, replicatedState } from '../../../src/internal.ts';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite-engine.ts';
import type { WriteTransaction } from '../../../src/store/port.ts';

// A write with `durable: false` (a replica's applied changes, the shared document's log) commits
// without a sync of the file; every other write, and any group a durable write is in, syncs.
// What SQLite syncs at a commit is its connection's `synchronous` then: read at each COMMIT.

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `synchronous` (1 NORMAL, 2 FULL) at each COMMIT of a write transaction (the writer connection's; reads end with COMMIT too). */
function commits(): number[] {
  const seen: number[] = [];
  const writers = new WeakSet<Database.Database>();
  const exec = Database.prototype.exec;
  vi.spyOn(Database.prototype, 'exec').mockImplementation(function (this: Database.Database, sql: string) {
    if (sql === 'BEGIN IMMEDIATE') writers.add(this);
    if (sql === 'COMMIT' && writers.has(this)) seen.push(this.pragma('synchronous', { simple: true }) as number);
    return exec.call(this, sql);
  });
  return seen;
}

/** A write that holds the writer for a moment, so the writes asked for meanwhile commit together after it (group commit). */
const slow = (room: string) => async (tx: WriteTransaction) => {
  await new Promise((resolve) => setTimeout(resolve, 30));
  await tx.appendDocLog(room, [new Uint8Array([9])]);
};

const append = (room: string) => (tx: WriteTransaction) => tx.appendDocLog(room, [new Uint8Array([1, 2, 3])]);

it('a write that need not be durable commits without a sync; writes before, after and beside it sync', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-durable-'));
  dirs.push(dir);
  const store = await openSqliteStore(dir, 'durable');
  const seen = commits();
  await store.write(append('a'));
  await store.write(append('a'), { durable: false });
  await store.write(append('a'));
  // Asked for while another write runs, writes commit as one group: a durable one among them syncs the group.
  await Promise.all([store.write(slow('b')), store.write(append('b'), { durable: false }), store.write(append('b'))]);
  await Promise.all([store.write(slow('c')), store.write(append('c'), { durable: false }), store.write(append('c'), { durable: false })]);
  expect(seen).toEqual([2, 1, 2, 2, 2, 2, 1]);
  // All of it committed, and the store still reads and writes.
  expect((await store.read((tx) => tx.getDocLog('a'))).updates).toHaveLength(3);
  expect((await store.read((tx) => tx.getDocLog('c'))).updates).toHaveLength(3);
  await store.close();
});

it('a write that need not be durable is still all or nothing, and the next write syncs', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-durable-'));
  dirs.push(dir);
  const store = await openSqliteStore(dir, 'durable');
  const seen = commits();
  await expect(
    store.write(async (tx) => {
      await append('a')(tx);
      throw new Error('refused');
    }, { durable: false }),
  ).rejects.toThrow('refused');
  await store.write(append('b'));
  expect((await store.read((tx) => tx.getDocLog('a'))).updates).toHaveLength(0);
  expect(seen).toEqual([2]);
  await store.close();
});

it('a store opened relaxed stays relaxed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-durable-'));
  dirs.push(dir);
  const store = await openSqliteStore(dir, 'relaxed', { durability: 'relaxed' });
  const seen = commits();
  await store.write(append('a'), { durable: false });
  await store.write(append('a'));
  expect(seen).toEqual([1, 1]);
  await store.close();
});

it("a replica's applied changes and its document log commit without a sync; the memory's own writes and a compaction sync", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-durable-'));
  dirs.push(dir);
  const ns = { userId: 'u1', scope: 'shared' };
  const writer = await openMemory({ name: 'writer', directory: dir });
  const replica = await openMemory({ name: 'replica', directory: dir });
  try {
    const { id } = await writer.remember({ namespace: ns, content: 'decided on another device' });
    const state = replicatedState((await writer.get(ns, id))!);
    const seen = commits();
    await replica.remember({ namespace: ns, content: 'written here' });
    expect(seen).toEqual([2]);
    const result = await replicaOf(replica).apply(ns, [{ put: state }], { after: 0, actor: 'sync', docLog: { room: 'r', updates: [new Uint8Array([1])] } });
    expect(result.stale).toBe(true); // the local remember is not shared yet: stored nothing but the update
    const applied = await replicaOf(replica).apply(ns, [{ put: state }], { after: result.lastSeq, actor: 'sync' });
    expect(applied.written.map((record) => record.id)).toEqual([id]);
    await replicaOf(replica).docLog.append('r', [new Uint8Array([2])], applied.lastSeq);
    await replicaOf(replica).docLog.compact('r', new Uint8Array([3]));
    expect(seen).toEqual([2, 1, 1, 1, 2]);
    expect((await replica.get(ns, id))?.content).toBe('decided on another device');
  } finally {
    await Promise.all([writer.close(), replica.close()]);
  }
});
