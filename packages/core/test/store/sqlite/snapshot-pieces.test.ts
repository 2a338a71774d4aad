import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Memory, RecallResult } from '../../../src/index.ts';
import { openMemoryOnStore } from '../../../src/runtime.ts';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite-engine.ts';
import { SNAPSHOT_PIECE_BYTES } from '../../../src/store/sqlite/snapshot-pieces.ts';
import { snapshotBody } from '../../../src/store/sqlite/sqlite-rows.ts';
import { memoryInternals } from '../../../src/test-hooks.ts';
import { hashingEmbedder } from '../../../../../test/kit/hashing-embedder.ts';
import { fakeClock } from '../../helpers.ts';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3');
const ns = { userId: 'u1' };
const nsKey = 'u=u1';
/** A piece far smaller than any index snapshot, so a test's few memories take several. */
const PIECE = 512;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-pieces-'));
  dirs.push(dir);
  return dir;
}

/** One clock for every open: recency, and so a score, is the same in each. */
const clock = fakeClock();

/** A memory on store `test` in `dir` whose snapshots are written as soon as due, in pieces of `pieceBytes`. */
function openAt(dir: string, pieceBytes = PIECE): Promise<Memory> {
  return openMemoryOnStore({ name: 'test', clock, embedder: hashingEmbedder(), indexSnapshots: { minRecords: 1, delayMs: 0 } }, (name) =>
    openSqliteStore(dir, name, { durability: 'relaxed', snapshotPieceBytes: pieceBytes }),
  );
}

function answer(result: RecallResult) {
  return { vector: result.vector, hits: result.hits.map((hit) => [hit.id, Number(hit.score.toFixed(9))]) };
}

const texts = Array.from({ length: 60 }, (_, i) => `the charging port of phone ${i} is loose after the ${i % 7}th repair`);

/** A store of 60 memories whose snapshot was written at close; what a recall answered before the close. */
async function storeWithSnapshot(dir: string, pieceBytes = PIECE): Promise<unknown> {
  const memory = await openAt(dir, pieceBytes);
  await memory.rememberMany(texts.map((content) => ({ namespace: ns, content })));
  await memory.whenEmbedded();
  const before = answer(await memory.recall(ns, 'loose charging port', { trackAccess: false }));
  await memoryInternals.get(memory)!.indexes.snapshotsIdle();
  await memory.close();
  return before;
}

function withFile<T>(dir: string, fn: (db: import('better-sqlite3').Database) => T): T {
  const db = new Database(join(dir, 'test.sqlite'));
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

const pieceCount = (dir: string) => withFile(dir, (db) => db.prepare('SELECT count(*) FROM index_snapshot_pieces WHERE ns = ?').pluck().get(nsKey) as number);

/** Deletes every record behind zeromem's back (no audit entry): only an index restored from the snapshot still finds them. */
function deleteRecordsBehindItsBack(dir: string): void {
  withFile(dir, (db) => db.prepare('DELETE FROM records').run());
}

describe('index snapshots larger than a piece (SQLite)', () => {
  it('are stored in several rows, each at most a piece, and read back whole: the next open restores them (a 1M namespace passed SQLite\'s 1 GB blob limit and rebuilt at every open)', async () => {
    const dir = freshDir();
    const before = await storeWithSnapshot(dir);
    expect(pieceCount(dir)).toBeGreaterThan(2);
    expect(withFile(dir, (db) => db.prepare('SELECT max(length(bytes)) FROM index_snapshot_pieces').pluck().get())).toBeLessThanOrEqual(PIECE);
    deleteRecordsBehindItsBack(dir);
    const next = await openAt(dir);
    expect(answer(await next.recall(ns, 'loose charging port', { trackAccess: false }))).toEqual(before);
    await next.close();
  });

  it('round-trip through the port, and a smaller snapshot or a delete leaves no piece behind', async () => {
    const dir = freshDir();
    const store = await openSqliteStore(dir, 'test', { durability: 'relaxed', snapshotPieceBytes: 64 });
    const row = { ns: nsKey, lastSeq: 9, format: 5, text: { terms: JSON.stringify(texts), tfs: Uint16Array.from({ length: 301 }, (_, i) => i) } };
    try {
      expect(snapshotBody(row).byteLength).toBeGreaterThan(64 * 3);
      await store.write(async (tx) => tx.putSnapshot(row));
      expect(await store.read(async (tx) => tx.getSnapshot(nsKey))).toEqual(row);
      expect(pieceCount(dir)).toBeGreaterThan(3);
      const small = { ns: nsKey, lastSeq: 10, format: 5 };
      await store.write(async (tx) => tx.putSnapshot(small));
      expect(await store.read(async (tx) => tx.getSnapshot(nsKey))).toEqual(small);
      expect(pieceCount(dir)).toBe(0);
      await store.write(async (tx) => tx.putSnapshot(row));
      await store.write(async (tx) => tx.deleteSnapshots([nsKey]));
      expect(await store.read(async (tx) => tx.getSnapshot(nsKey))).toBeUndefined();
      expect(pieceCount(dir)).toBe(0);
    } finally {
      await store.close();
    }
  });

  for (const [damage, sql] of [
    ['a piece missing', 'DELETE FROM index_snapshot_pieces WHERE piece = 1'],
    ['the last piece missing', 'DELETE FROM index_snapshot_pieces WHERE piece = (SELECT max(piece) FROM index_snapshot_pieces)'],
    ['a piece cut short', 'UPDATE index_snapshot_pieces SET bytes = substr(bytes, 1, 100) WHERE piece = 1'],
    ['a piece too many', "INSERT INTO index_snapshot_pieces (ns, piece, bytes) VALUES ('u=u1', 1000, x'00')"],
    ['every piece missing', 'DELETE FROM index_snapshot_pieces'],
  ] as const) {
    it(`with ${damage} are rebuilt from the memories at the next open, never restored`, async () => {
      const dir = freshDir();
      const before = await storeWithSnapshot(dir);
      withFile(dir, (db) => db.exec(sql));
      const next = await openAt(dir);
      expect(answer(await next.recall(ns, 'loose charging port', { trackAccess: false }))).toEqual(before);
      await memoryInternals.get(next)!.indexes.snapshotsIdle();
      await next.close();
      // Rebuilt from the rows (the restore would have found the records deleted below), and stored whole again.
      deleteRecordsBehindItsBack(dir);
      const third = await openAt(dir);
      expect(answer(await third.recall(ns, 'loose charging port', { trackAccess: false }))).toEqual(before);
      await third.close();
    });
  }

  it('a store of format 1004 (snapshots in one row) gets the table of pieces at its first open and restores the snapshot it had', async () => {
    const dir = freshDir();
    const before = await storeWithSnapshot(dir, SNAPSHOT_PIECE_BYTES); // the default piece: this snapshot is one row, as 1004 stored it
    withFile(dir, (db) => {
      expect(db.prepare('SELECT count(*) FROM index_snapshot_pieces').pluck().get()).toBe(0);
      db.exec("DROP TABLE index_snapshot_pieces; UPDATE meta SET v = 1004 WHERE k = 'version'");
    });
    deleteRecordsBehindItsBack(dir);
    const next = await openAt(dir);
    expect(answer(await next.recall(ns, 'loose charging port', { trackAccess: false }))).toEqual(before); // restored: the deleted records are still in the index
    await next.close();
    withFile(dir, (db) => {
      expect(db.prepare("SELECT v FROM meta WHERE k = 'version'").pluck().get()).toBe(1005);
      expect(db.prepare('SELECT count(*) FROM index_snapshot_pieces').pluck().get()).toBe(0);
    });
  });
});
