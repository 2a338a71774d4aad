import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemory } from '../../../src/index.node.ts';
import { fakeClock } from '../../helpers.ts';
import { hashingEmbedder } from '../../../../../test/kit/hashing-embedder.ts';
import { vectorOf } from '../../../src/store/sqlite/sqlite-rows.ts';
import { FORMAT_VERSION } from '../../../src/store/sqlite/sqlite-schema.ts';

// Issue 32: a stored vector costs its own model's dimensions. The bundled embedder puts an
// English model's 128 columns beside a Chinese model's 512 in one 640-d space; an English
// memory's vector used to be stored with the 512 zeros (2,560 bytes).
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3');
const EN = 128;
const ZH = 512;
const ns = { userId: 'u1' };

/** The bundled embedder's shape with feature hashing: Han text into the last 512 columns, other text into the first 128. */
const sideBySide = () => hashingEmbedder({ modelId: 'test-side-by-side', dimension: EN + ZH, hanDimensions: ZH });

const CONTENTS = ['Prefers phone calls over e-mail', 'Plays the piano on Sundays', 'Allergic to peanuts and shellfish', '用户偏好圆通快递', '每周日弹钢琴', '对花生过敏'];
const QUERIES = ['phone calls', 'piano', 'peanuts', '快递', '钢琴', '花生过敏'];

/** One moment for every recall, so that scores compare (recency moves with the clock). */
const clock = fakeClock();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function filledStore(): Promise<{ dir: string; file: string; answers: unknown[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-vectors-'));
  dirs.push(dir);
  const memory = await openMemory({ name: 'v', directory: dir, embedder: sideBySide(), clock });
  await memory.rememberMany(Array.from({ length: 300 }, (_, i) => CONTENTS.map((content) => ({ namespace: ns, content: `${content} ${i}` }))).flat());
  await memory.whenEmbedded();
  const answers = await recallAll(memory);
  await memory.close();
  return { dir, file: join(dir, 'v.sqlite'), answers };
}

async function recallAll(memory: Awaited<ReturnType<typeof openMemory>>): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const query of QUERIES) {
    const result = await memory.recall(ns, query, { k: 20, trackAccess: false });
    out.push(result.vector, result.hits.map((hit) => [hit.record.content, hit.score, hit.explain.cosine]));
  }
  return out;
}

function blobSizes(file: string): { english: number; chinese: number; count: number } {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare('SELECT vector FROM vectors').pluck().all() as Buffer[];
    let english = 0;
    let chinese = 0;
    for (const blob of rows) {
      const { vector } = vectorOf('m', 'h', blob);
      if (vector!.subarray(EN).some((x) => x !== 0)) chinese = Math.max(chinese, blob.byteLength);
      else english = Math.max(english, blob.byteLength);
    }
    return { english, chinese, count: rows.length };
  } finally {
    db.close();
  }
}

describe('vectors on disk', { timeout: 60_000 }, () => {
  it('are stored at their own model\'s dimensions: no block of the other model\'s zeros', async () => {
    const { file } = await filledStore();
    const sizes = blobSizes(file);
    expect(sizes.count).toBe(1800);
    expect(sizes.english).toBeLessThanOrEqual(8 + EN * 4);
    expect(sizes.chinese).toBeLessThanOrEqual(8 + ZH * 4);
  });

  it('of a store of format 1002 (every value, zeros too) are trimmed at its first open, the file shrinks, and recall answers as before', async () => {
    const { file, answers } = await filledStore();
    // The file as format 1002 left it: its table of whole float32 vectors, that version.
    const db = new Database(file);
    const rows = asFormat1003(db);
    db.exec(`CREATE TABLE vectors (model TEXT NOT NULL, hash TEXT NOT NULL, vector BLOB, PRIMARY KEY (model, hash)) WITHOUT ROWID;
      CREATE INDEX vectors_by_hash ON vectors (hash);`);
    const put = db.prepare('INSERT INTO vectors (vector, model, hash) VALUES (?, ?, ?)');
    db.transaction(() => {
      for (const [model, hash, blob] of rows) {
        const { vector } = vectorOf(model, hash, blob);
        put.run(Buffer.from(vector!.buffer), model, hash);
      }
      db.prepare("UPDATE meta SET v = 1002 WHERE k = 'version'").run();
    })();
    db.exec('VACUUM');
    db.close();
    expect(blobSizes.bind(null, file)).toThrow(RangeError); // whole vectors are not this format's
    const before = statSync(file).size;

    const memory = await openMemory({ name: 'v', directory: join(file, '..'), embedder: sideBySide(), clock });
    expect(await recallAll(memory)).toEqual(answers);
    expect(await memory.pendingEmbeddings()).toBe(0); // nothing re-embedded
    await memory.close();
    const sizes = blobSizes(file);
    expect(sizes.count).toBe(1800);
    expect(sizes.english).toBeLessThanOrEqual(8 + EN * 4);
    expect(statSync(file).size).toBeLessThan(before * 0.7);
    expectThisFormat(file);
  });

  it('of a store of format 1003 (the model\'s name and the hash\'s hex in every row, seven record indexes) are moved at its first open: recall, lists and a user\'s records answer as before, the file shrinks', async () => {
    const { file, answers } = await filledStore();
    const other = { userId: 'u1', agentId: 'a' }; // a namespace of the same user, and a user whose key starts like u1's
    let memory = await openMemory({ name: 'v', directory: join(file, '..'), embedder: sideBySide(), clock });
    await memory.rememberMany([{ namespace: other, content: 'Plays chess', tags: ['t'] }, { namespace: { userId: 'u10' }, content: 'Plays go' }]);
    await memory.whenEmbedded();
    const lists = await everyList(memory);
    await memory.close();
    const db = new Database(file);
    const rows = asFormat1003(db);
    db.exec('CREATE TABLE vectors (model TEXT NOT NULL, hash TEXT NOT NULL, vector BLOB); CREATE UNIQUE INDEX vectors_by_hash ON vectors (hash, model);');
    const put = db.prepare('INSERT INTO vectors (model, hash, vector) VALUES (?, ?, ?)');
    db.transaction(() => {
      for (const row of rows) put.run(...row);
      db.prepare("UPDATE meta SET v = 1003 WHERE k = 'version'").run();
    })();
    db.exec('VACUUM');
    db.close();
    const before = statSync(file).size;

    memory = await openMemory({ name: 'v', directory: join(file, '..'), embedder: sideBySide(), clock });
    expect(await recallAll(memory)).toEqual(answers);
    expect(await memory.pendingEmbeddings()).toBe(0); // nothing re-embedded
    expect(await everyList(memory)).toEqual(lists);
    expect(await memory.forgetUser('u1')).toBe(1801);
    expect(await memory.count({ userId: 'u10' })).toBe(1);
    await memory.close();
    expect(blobSizes(file).count).toBe(1);
    expect(statSync(file).size).toBeLessThan(before);
    expectThisFormat(file);
  });

  it('are keyed by the model\'s row id and the hash\'s 32 bytes', async () => {
    const { file } = await filledStore();
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT name FROM vector_models').pluck().all()).toEqual(['test-side-by-side']);
    expect(db.prepare('SELECT DISTINCT typeof(model) || length(hash) FROM vectors').pluck().all()).toEqual(['integer32']);
    db.close();
  });
});

/**
 * Rewrites a store of this release's format as format 1003 had it (its seven record
 * indexes, no `vector_models`) and hands back its vectors as that format stored them
 * (model name, hex hash, blob); the caller creates the `vectors` table it wants and fills it.
 */
function asFormat1003(db: import('better-sqlite3').Database): Array<[string, string, Buffer | null]> {
  const rows = (db.prepare('SELECT m.name, v.hash, v.vector FROM vectors v JOIN vector_models m ON m.id = v.model ORDER BY v.rowid').raw().all() as Array<[string, Buffer, Buffer | null]>).map(
    ([model, hash, blob]): [string, string, Buffer | null] => [model, hash.toString('hex'), blob],
  );
  db.exec(`DROP TABLE vectors; DROP TABLE vector_models;
    CREATE INDEX records_by_user ON records (user_id);
    CREATE INDEX records_by_created ON records (ns, created_at, id);
    CREATE INDEX records_by_updated ON records (ns, updated_at, id);`);
  return rows;
}

/** The file is in this release's format: its version, its indexes (none of the three 1004 dropped), its vectors' models. */
function expectThisFormat(file: string): void {
  const check = new Database(file, { readonly: true });
  expect(check.prepare("SELECT v FROM meta WHERE k = 'version'").pluck().get()).toBe(FORMAT_VERSION);
  expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name IN ('records_by_user', 'records_by_created', 'records_by_updated')").pluck().all()).toEqual([]);
  expect(check.prepare('SELECT name FROM vector_models').pluck().all()).toEqual(['test-side-by-side']);
  check.close();
}

/** Every ordered list of namespace `ns` and of the other: both orders and times, whole and in pages of 7, and by layer and tag. */
async function everyList(memory: Awaited<ReturnType<typeof openMemory>>): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const namespace of [ns, { userId: 'u1', agentId: 'a' }]) {
    for (const orderBy of ['createdAt', 'updatedAt'] as const) {
      for (const order of ['asc', 'desc'] as const) {
        out.push((await memory.list(namespace, { orderBy, order, limit: 1000 })).items.map((r) => r.id));
        const paged: string[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 3; page++) {
          const result = await memory.list(namespace, { orderBy, order, limit: 7, ...(cursor ? { cursor } : {}) });
          paged.push(...result.items.map((r) => r.id));
          cursor = result.nextCursor ?? undefined;
        }
        out.push(paged);
      }
    }
    out.push((await memory.list(namespace, { layer: 'long_term', limit: 50 })).items.map((r) => r.id), (await memory.list(namespace, { tags: { any: ['t'] } })).items.map((r) => r.id));
    out.push(await memory.count(namespace));
  }
  return out;
}
