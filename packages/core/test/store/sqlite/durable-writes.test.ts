import fs, { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { openMemory } from '../../../src/index.node.ts';
import { replicaOf, replicatedState } from '../../../src/internal.ts';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite-engine.ts';
import type { WriteTransaction } from '../../../src/store/port.ts';

// Every commit is written without a sync of the file; a durable write (every write but a
// replica's applied changes and the shared document's log, `durable: false`) is acknowledged
// once a sync of the WAL that began after its commit is done. That sync runs on libuv's
// threads (`fs.fdatasync`), so the event loop goes on meanwhile: the commit is already
// readable, and sync can send it.

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-durable-'));
  dirs.push(dir);
  return dir;
}

/** Every sync of a file (`fs.fdatasync`) is held until `release()`; `count` is how many were asked for. */
function heldSyncs() {
  const held: Array<() => void> = [];
  let count = 0;
  const real = fs.fdatasync.bind(fs);
  vi.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, done: (err: NodeJS.ErrnoException | null) => void) => {
    count++;
    held.push(() => real(fd, done));
  }) as typeof fs.fdatasync);
  return {
    get count() {
      return count;
    },
    get waiting() {
      return held.length;
    },
    release: () => held.splice(0).forEach((sync) => sync()),
  };
}

/** Counts the syncs of a file (`fs.fdatasync`), each done at once. */
function countedSyncs(): { count: number } {
  const counter = { count: 0 };
  const real = fs.fdatasync.bind(fs);
  vi.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, done: (err: NodeJS.ErrnoException | null) => void) => {
    counter.count++;
    real(fd, done);
  }) as typeof fs.fdatasync);
  return counter;
}

const append = (room: string) => (tx: WriteTransaction) => tx.appendDocLog(room, [new Uint8Array([1, 2, 3])]);

it('a durable write is acknowledged after a sync of the WAL, which leaves the event loop free: meanwhile its commit is readable', async () => {
  const store = await openSqliteStore(tempDir(), 'durable');
  const syncs = heldSyncs();
  let acknowledged = false;
  const write = store.write(append('a')).then(() => (acknowledged = true));
  await vi.waitFor(() => expect(syncs.waiting).toBe(1));
  // The event loop runs a read meanwhile, and it sees the commit.
  expect((await store.read((tx) => tx.getDocLog('a'))).updates).toHaveLength(1);
  expect(acknowledged).toBe(false);
  syncs.release();
  await write;
  expect(acknowledged).toBe(true);
  await store.close();
});

it('writes committed while a sync runs wait for the next one, which syncs them all; a write that need not be durable waits for none', async () => {
  const store = await openSqliteStore(tempDir(), 'durable');
  const syncs = heldSyncs();
  const first = store.write(append('a'));
  await vi.waitFor(() => expect(syncs.waiting).toBe(1));
  // The next writes commit while the first one's sync runs (the writer connection is free).
  const acknowledged: string[] = [];
  const later = [store.write(append('b')).then(() => acknowledged.push('b')), store.write(append('c')).then(() => acknowledged.push('c'))];
  await store.write(append('d'), { durable: false });
  expect((await store.read((tx) => tx.getDocLog('c'))).updates).toHaveLength(1);
  expect(syncs.count).toBe(1); // theirs begins only after the running one, which may have missed them
  syncs.release();
  await first;
  await vi.waitFor(() => expect(syncs.waiting).toBe(1));
  expect(acknowledged).toEqual([]);
  syncs.release();
  await Promise.all(later);
  expect(acknowledged.sort()).toEqual(['b', 'c']);
  expect(syncs.count).toBe(2);
  await store.close();
});

it('a write that need not be durable is still all or nothing', async () => {
  const store = await openSqliteStore(tempDir(), 'durable');
  const syncs = countedSyncs();
  await expect(
    store.write(async (tx) => {
      await append('a')(tx);
      throw new Error('refused');
    }, { durable: false }),
  ).rejects.toThrow('refused');
  await store.write(append('b'));
  expect((await store.read((tx) => tx.getDocLog('a'))).updates).toHaveLength(0);
  expect(syncs.count).toBe(1);
  await store.close();
});

it('a failed sync of the WAL rejects the writes it was to make durable, and the store takes no more writes', async () => {
  const store = await openSqliteStore(tempDir(), 'durable');
  vi.spyOn(fs, 'fdatasync').mockImplementation(((_fd: number, done: (err: NodeJS.ErrnoException | null) => void) => {
    done(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
  }) as typeof fs.fdatasync);
  await expect(store.write(append('a'))).rejects.toMatchObject({ code: 'STORAGE_FAILED', details: { storage: { reason: 'unavailable' } } });
  vi.restoreAllMocks();
  await expect(store.write(append('b'), { durable: false })).rejects.toMatchObject({ code: 'STORAGE_FAILED' });
  await store.close();
});

it('a store opened relaxed never syncs a commit', async () => {
  const store = await openSqliteStore(tempDir(), 'relaxed', { durability: 'relaxed' });
  const syncs = countedSyncs();
  await store.write(append('a'), { durable: false });
  await store.write(append('a'));
  expect(syncs.count).toBe(0);
  await store.close();
});

it("a replica's applied changes and its document log are acknowledged without a sync; the memory's own writes and a compaction wait for one", async () => {
  const dir = tempDir();
  const ns = { userId: 'u1', scope: 'shared' };
  const writer = await openMemory({ name: 'writer', directory: dir });
  const replica = await openMemory({ name: 'replica', directory: dir });
  try {
    const { id } = await writer.remember({ namespace: ns, content: 'decided on another device' });
    const state = replicatedState((await writer.get(ns, id))!);
    const syncs = countedSyncs();
    const seen: number[] = [];
    await replica.remember({ namespace: ns, content: 'written here' });
    seen.push(syncs.count);
    const result = await replicaOf(replica).apply(ns, [{ put: state }], { after: 0, actor: 'sync', docLog: { room: 'r', updates: [new Uint8Array([1])] } });
    expect(result.stale).toBe(true); // the local remember is not shared yet: stored nothing but the update
    seen.push(syncs.count);
    const applied = await replicaOf(replica).apply(ns, [{ put: state }], { after: result.lastSeq, actor: 'sync' });
    expect(applied.written.map((record) => record.id)).toEqual([id]);
    seen.push(syncs.count);
    await replicaOf(replica).docLog.append('r', [new Uint8Array([2])], applied.lastSeq);
    seen.push(syncs.count);
    await replicaOf(replica).docLog.compact('r', new Uint8Array([3]));
    seen.push(syncs.count);
    expect(seen).toEqual([1, 1, 1, 1, 2]);
    expect((await replica.get(ns, id))?.content).toBe('decided on another device');
  } finally {
    await Promise.all([writer.close(), replica.close()]);
  }
});
