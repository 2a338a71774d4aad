/**
 * @zeromem/core in real Chromium, on real (on-disk) IndexedDB: what was acknowledged is
 * there after a reload and after a browser restart; a forget stays forgotten; bad input
 * throws ZeromemError INVALID_INPUT and writes nothing.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditOp, MemoryRecord, Namespace } from '@zeromem/core';
import { reloadPage, skipBrowserTests, startHarness, uniqueName, type Harness } from './browser.ts';

/** The order `list` returns by default: createdAt desc, then id desc. */
function newestFirst(records: MemoryRecord[]): MemoryRecord[] {
  const key = (r: MemoryRecord) => `${String(r.createdAt).padStart(16, '0')}\u0000${r.id}`;
  return [...records].sort((a, b) => (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0));
}

interface Snapshot {
  gets: Array<MemoryRecord | null>;
  red: MemoryRecord[];
  redNext: string | null;
  all: MemoryRecord[];
  count: number;
  redCount: number;
  audit: AuditOp[];
}

/** Opens the memory in the page and reads it back: every id, the 'red' list, counts, audit ops. */
function readBack(page: Page, name: string, ns: Namespace, ids: string[]): Promise<Snapshot> {
  return page.evaluate(
    async ({ name, ns, ids }) => {
      const memory = await window.zeromem.openMemory({ name });
      try {
        const gets: Array<MemoryRecord | null> = [];
        for (const id of ids) gets.push((await memory.get(ns, id)) ?? null);
        const red = await memory.list(ns, { tags: { any: ['red'] }, limit: 1000 });
        const all = await memory.list(ns, { limit: 1000 });
        return {
          gets,
          red: red.items,
          redNext: red.nextCursor,
          all: all.items,
          count: await memory.count(ns),
          redCount: await memory.count(ns, { tags: { any: ['red'] } }),
          audit: (await memory.audit(ns)).map((entry) => entry.op),
        };
      } finally {
        memory.close();
      }
    },
    { name, ns, ids },
  );
}

describe.skipIf(skipBrowserTests(import.meta.url))('browser persistence (real Chromium IndexedDB)', () => {
  let harness: Harness;
  let page: Page;

  beforeAll(async () => {
    harness = await startHarness();
    page = await harness.newPage();
  });

  afterAll(async () => {
    await harness?.close();
  });

  /** Writes 10 single memories and a batch of 30: every third one is tagged 'red' (14 in all). */
  function writeForty(name: string, ns: Namespace, durability: 'default' | 'strict' = 'default'): Promise<MemoryRecord[]> {
    return page.evaluate(
      async ({ name, ns, durability }) => {
        const memory = await window.zeromem.openMemory({ name, durability });
        try {
          const written: MemoryRecord[] = [];
          for (let i = 0; i < 10; i++) {
            const { record, deduplicated } = await memory.remember({
              namespace: ns,
              content: `single memory ${i}`,
              tags: i % 3 === 0 ? ['red', `n${i}`] : ['blue'],
              metadata: { i, kind: 'single' },
              importance: i / 10,
            });
            if (deduplicated) throw new Error('unexpected dedupe');
            written.push(record);
          }
          const batch = Array.from({ length: 30 }, (_, k) => ({
            namespace: ns,
            content: `batch memory ${k}`,
            tags: (10 + k) % 3 === 0 ? ['red'] : ['green'],
            metadata: { i: 10 + k, kind: 'batch' },
          }));
          const { results, failures } = await memory.rememberMany(batch);
          if (failures.length) throw new Error('unexpected failures');
          for (const result of results) written.push(result.record);
          return written;
        } finally {
          memory.close();
        }
      },
      { name, ns, durability },
    );
  }

  it('finds every acknowledged write after a reload: get, tag-filtered list, count', async () => {
    const name = uniqueName('persist');
    const ns = { userId: 'u-persist', agentId: 'agent-1' };
    const written = await writeForty(name, ns);
    expect(written).toHaveLength(40);
    expect(new Set(written.map((r) => r.id)).size).toBe(40);
    const red = written.filter((r) => r.tags.includes('red'));
    expect(red).toHaveLength(14); // singles 0,3,6,9 and batch positions 10..39 divisible by 3

    await reloadPage(page);

    const after = await readBack(page, name, ns, written.map((r) => r.id));
    expect(after.gets).toEqual(written);
    expect(after.count).toBe(40);
    expect(after.redCount).toBe(14);
    expect(after.red.map((r) => r.id)).toEqual(newestFirst(red).map((r) => r.id));
    expect(after.red).toEqual(newestFirst(red));
    expect(after.redNext).toBeNull();
    expect(after.all.map((r) => r.id)).toEqual(newestFirst(written).map((r) => r.id));
    expect(after.audit).toEqual(Array(40).fill('remember'));
    // Other namespaces see none of it.
    const elsewhere = await readBack(page, name, { userId: 'u-persist' }, [written[0]!.id]);
    expect(elsewhere).toMatchObject({ gets: [null], count: 0, redCount: 0, red: [], all: [], audit: [] });
  });

  it('restores the index from its snapshot in IndexedDB after a reload: the same recall, and the snapshot is the one read', async () => {
    const name = uniqueName('snapshot');
    const ns = { userId: 'u-snapshot' };
    const words = ['doctor', 'garden', 'blue', 'car', 'office', 'plane', 'coffee', 'sister', 'tuesday', 'refund'];
    const recallIn = (write: boolean) =>
      page.evaluate(
        async ({ name, ns, words, write }) => {
          const memory = await window.zeromem.openMemory({ name, indexSnapshots: { minRecords: 1, delayMs: 0 } });
          try {
            if (write) {
              await memory.rememberMany(Array.from({ length: 60 }, (_, i) => ({ namespace: ns, content: `note ${i}: ${words[i % 10]} and ${words[(i * 3) % 10]} — 第${i}条 café` })));
            }
            const result = await memory.recall(ns, 'doctor garden café', { trackAccess: false });
            // Scores move with the clock (recency) between the two opens: the hits and their records are what must be equal.
            return result.hits.map((hit) => [hit.record.id, hit.record.content, hit.record.contentHash]).sort();
          } finally {
            await memory.close(); // writes the snapshot of an index that changed
          }
        },
        { name, ns, words, write },
      );
    const before = await recallIn(true);
    expect(before.length).toBeGreaterThan(0);
    await reloadPage(page);
    const stored = await page.evaluate(async (name) => {
      const request = indexedDB.open(name);
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      const store = [...db.objectStoreNames].find((store) => /snapshot/i.test(store))!;
      const rows = await new Promise<Array<{ format?: number; records?: { contents?: unknown } }>>((resolve, reject) => {
        const all = db.transaction(store).objectStore(store).getAll();
        all.onsuccess = () => resolve(all.result as Array<{ format?: number; records?: { contents?: unknown } }>);
        all.onerror = () => reject(all.error);
      });
      db.close();
      return rows.filter((row) => row.records).map((row) => ({ format: row.format, bytes: row.records!.contents instanceof Uint8Array }));
    }, name);
    expect(stored).toEqual([{ format: 5, bytes: true }]);
    expect(await recallIn(false)).toEqual(before);
  });

  it('keeps a forget after a reload, and forgetting again finds nothing', async () => {
    const name = uniqueName('forget');
    const ns = { userId: 'u-forget' };
    const written = await writeForty(name, ns);
    const gone = [written[0]!, written[3]!, written[20]!]; // red, red, green
    const results = await page.evaluate(
      async ({ name, ns, ids }) => {
        const memory = await window.zeromem.openMemory({ name });
        try {
          const out: boolean[] = [];
          for (const id of ids) out.push(await memory.forget(ns, id));
          return out;
        } finally {
          memory.close();
        }
      },
      { name, ns, ids: gone.map((r) => r.id) },
    );
    expect(results).toEqual([true, true, true]);

    await reloadPage(page);

    const kept = written.filter((r) => !gone.includes(r));
    const after = await readBack(page, name, ns, written.map((r) => r.id));
    expect(after.gets).toEqual(written.map((r) => (gone.includes(r) ? null : r)));
    expect(after.count).toBe(37);
    expect(after.redCount).toBe(12);
    expect(after.red).toEqual(newestFirst(kept.filter((r) => r.tags.includes('red'))));
    expect(after.all).toEqual(newestFirst(kept));
    expect(after.audit).toEqual([...Array(40).fill('remember'), 'forget', 'forget', 'forget']);
    // The content is gone from the database, not just hidden: no row carries it.
    const dump = await page.evaluate(async (name) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const request = indexedDB.open(name);
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      const rows = await new Promise<unknown[]>((resolve, reject) => {
        const request = db.transaction('records').objectStore('records').getAll();
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      db.close();
      return JSON.stringify(rows);
    }, name);
    for (const record of gone) expect(dump).not.toContain(record.content);
    for (const record of kept) expect(dump).toContain(record.content);

    const again = await page.evaluate(
      async ({ name, ns, id }) => {
        const memory = await window.zeromem.openMemory({ name });
        try {
          return await memory.forget(ns, id);
        } finally {
          memory.close();
        }
      },
      { name, ns, id: gone[0]!.id },
    );
    expect(again).toBe(false);
  });

  it('keeps strict-durability writes across a browser restart (same profile on disk)', async () => {
    const name = uniqueName('restart');
    const ns = { userId: 'u-restart', scope: 'project-x' };
    const written = await writeForty(name, ns, 'strict');

    await harness.restartBrowser();
    page = await harness.newPage();

    const after = await readBack(page, name, ns, written.map((r) => r.id));
    expect(after.gets).toEqual(written);
    expect(after.count).toBe(40);
    expect(after.redCount).toBe(14);
    expect(after.red).toEqual(newestFirst(written.filter((r) => r.tags.includes('red'))));
  });

  it('rejects invalid input with ZeromemError INVALID_INPUT and writes nothing, even after a reload', async () => {
    const name = uniqueName('invalid');
    const ns = { userId: 'u-invalid' };
    const outcome = await page.evaluate(
      async ({ name, ns }) => {
        const { openMemory, ZeromemError } = window.zeromem;
        const memory = await openMemory({ name });
        const attempt = async (write: () => Promise<unknown>) => {
          try {
            await write();
            return { threw: false };
          } catch (err) {
            const e = err as InstanceType<typeof ZeromemError>;
            return {
              threw: true,
              isZeromemError: err instanceof ZeromemError,
              name: e.name,
              code: e.code,
              issues: e.details?.issues ?? null,
              items: (e.details?.items ?? []).map((item) => ({ index: item.index, code: item.code, paths: item.issues.map((i) => i.path) })),
            };
          }
        };
        try {
          const kept = await memory.remember({ namespace: ns, content: 'the one valid memory' });
          const results = [
            await attempt(() => memory.remember({ namespace: ns, content: '   ' })),
            await attempt(() => memory.remember({ namespace: ns, content: 'bad tag', tags: [' padded '] })),
            await attempt(() => memory.remember({ namespace: ns, content: 'bad metadata', metadata: { n: Number.NaN } })),
            await attempt(() => memory.remember({ namespace: ns, content: 'bad importance', importance: 2 })),
            await attempt(() =>
              memory.rememberMany([
                { namespace: ns, content: 'fine 1' },
                { namespace: ns, content: 'fine 2', tags: ['ok'] },
                { namespace: ns, content: '' },
                { namespace: ns, content: 'unknown field', colour: 'red' } as never,
              ]),
            ),
          ];
          return { keptId: kept.id, results, count: await memory.count(ns), audit: (await memory.audit(ns)).length };
        } finally {
          memory.close();
        }
      },
      { name, ns },
    );

    const base = { threw: true, isZeromemError: true, name: 'ZeromemError', code: 'INVALID_INPUT' };
    expect(outcome.results[0]).toMatchObject({ ...base, issues: [{ path: 'content' }] });
    expect(outcome.results[1]).toMatchObject({ ...base, issues: [{ path: 'tags.0' }] });
    expect(outcome.results[2]).toMatchObject({ ...base, issues: [{ path: 'metadata.n' }] });
    expect(outcome.results[3]).toMatchObject({ ...base, issues: [{ path: 'importance' }] });
    expect(outcome.results[4]).toMatchObject({
      ...base,
      issues: null,
      items: [
        { index: 2, code: 'INVALID_INPUT', paths: ['content'] },
        { index: 3, code: 'INVALID_INPUT', paths: ['colour'] },
      ],
    });
    expect(outcome.count).toBe(1);
    expect(outcome.audit).toBe(1);

    await reloadPage(page);
    const after = await readBack(page, name, ns, [outcome.keptId]);
    expect(after.count).toBe(1);
    expect(after.all.map((r) => r.content)).toEqual(['the one valid memory']);
    expect(after.audit).toEqual(['remember']);
  });
});
