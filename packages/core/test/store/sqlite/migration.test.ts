import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemory, type Memory } from '../../../src/index.node.ts';
import { contentHashNow } from '../../../src/model/content-hash.ts';
import { toRow } from '../../../src/store/row.ts';
import { runStoreProcess, startStoreProcess } from './run-store-process.ts';

// The format of the releases before the SQLite engine (an IndexedDB persisted to SQLite):
// the committed fixture of the last of them, grown here with the old code's own writer.
const FIXTURE = fileURLToPath(new URL('./fixtures/release-e57c751.sqlite', import.meta.url));
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3');
const ns = { userId: 'u1' };

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A copy of the fixture as store `u1` with `extra` more records (and their audit rows) in
 * the old format's tables. They are written whole (no index fields split out into `ix`,
 * which the old reader takes as they are): the fixture's own rows are the old writer's.
 */
function oldStore(extra: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-migrate-'));
  dirs.push(dir);
  copyFileSync(FIXTURE, join(dir, 'u1.sqlite'));
  const db = new Database(join(dir, 'u1.sqlite'));
  const store = (name: string) => db.prepare('SELECT id, keyGenerator FROM stores WHERE name = ?').raw().get(name) as [number, number];
  const [records] = store('records');
  const [audit, keyGenerator] = store('audit');
  const insert = db.prepare('INSERT INTO rows (store, key, ix, json, bytes) VALUES (?, ?, NULL, ?, NULL)');
  db.transaction(() => {
    for (let i = 0; i < extra; i++) {
      const id = `OLD${String(i).padStart(8, '0')}`;
      const at = Date.UTC(2026, 0, 2) + i;
      const content = `Old memory ${i} with a few more words in it`;
      const row = toRow({ id, namespace: ns, namespaceKey: 'u=u1', content, source: 'user', layer: 'long_term', tags: [`t${i % 3}`], metadata: { i }, importance: 0.5, createdAt: at, updatedAt: at, expiresAt: null, accessCount: 0, lastAccessedAt: null, contentHash: contentHashNow(content)!, version: 1, tier: 'hot', mergedFrom: [], key: null, validFrom: null, validUntil: null, closedBy: null, statedUntil: null });
      insert.run(records, Buffer.from(`u=u1/${id}`), JSON.stringify(row));
      const seq = keyGenerator + i + 1;
      insert.run(audit, Buffer.from(`seq/${seq}`), JSON.stringify({ ns: 'u=u1', op: 'remember', id, namespace: ns, at, actor: 'local', seq }));
    }
    db.prepare('UPDATE stores SET keyGenerator = ? WHERE id = ?').run(keyGenerator + extra, audit);
  })();
  db.close();
  return dir;
}

/** Every audit entry of the namespace, page by page. */
async function auditSeqs(memory: Memory): Promise<number[]> {
  const seqs: number[] = [];
  for (;;) {
    const page = await memory.audit(ns, { after: seqs.at(-1) ?? 0, limit: 10_000 });
    if (page.length === 0) return seqs;
    seqs.push(...page.map((entry) => entry.seq));
  }
}

function tables(dir: string): string[] {
  const db = new Database(join(dir, 'u1.sqlite'), { readonly: true });
  try {
    return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[]).filter((name) => name !== 'sqlite_sequence');
  } finally {
    db.close();
  }
}

describe('the migration of a store of the releases before the SQLite engine', { timeout: 180_000 }, () => {
  it('happens once: the old tables are gone, every record, audit entry and sequence number is there once, and another process opens it as it is', async () => {
    const dir = oldStore(500);
    expect(tables(dir)).toEqual(['entries', 'meta', 'rows', 'stores']);
    const memory = await openMemory({ name: 'u1', directory: dir });
    expect(tables(dir)).toEqual(['audit', 'doc_cursors', 'doc_updates', 'index_snapshot_pieces', 'index_snapshots', 'meta', 'record_tags', 'records', 'vector_models', 'vectors']);
    expect(await memory.count(ns)).toBe(519);
    expect((await memory.get(ns, 'OLD00000499'))?.metadata).toEqual({ i: 499 });
    expect((await memory.list(ns, { tags: { any: ['t1'] }, limit: 1000 })).items.length).toBe(6 + 167);
    const seqs = await auditSeqs(memory);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs.length).toBe(522);
    const { id } = await memory.remember({ namespace: ns, content: 'Written after the migration' });
    expect((await memory.audit(ns, { limit: 1000 })).find((entry) => entry.id === id)!.seq).toBeGreaterThan(Math.max(...seqs));
    await memory.close();
    const other = JSON.parse((await runStoreProcess(['read', dir, 'u1'])).at(-1)!) as { count: number; ids: string[] };
    expect(other.count).toBe(520);
    expect(new Set(other.ids).size).toBe(520);
  });

  it('a process killed during the migration leaves the old store as it was, and the next open migrates everything once', async () => {
    const dir = oldStore(20_000);
    const wal = join(dir, 'u1.sqlite-wal');
    const opener = startStoreProcess(['open', dir, 'u1']);
    // The migration writes its copy into the WAL: kill the process once a few MB of it are there.
    while (!(existsSync(wal) && statSync(wal).size > 4 << 20)) {
      if (opener.lines.length > 0) throw new Error(`the migration ended before the kill: ${opener.lines.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    opener.child.kill('SIGKILL');
    expect((await opener.exited).signal).toBe('SIGKILL');
    expect(tables(dir)).toEqual(['entries', 'meta', 'rows', 'stores']); // killed mid-way: nothing of it committed
    const memory = await openMemory({ name: 'u1', directory: dir });
    expect(tables(dir)).not.toContain('rows');
    expect(await memory.count(ns)).toBe(20_019);
    const seqs = await auditSeqs(memory);
    expect(seqs.length).toBe(20_022);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect((await memory.get(ns, 'OLD00019999'))?.content).toBe('Old memory 19999 with a few more words in it');
    await memory.close();
  });

  it('is waited for by a second opener while it runs (it holds the write lock far longer than a write), which hears how far it came and then opens the migrated store', async () => {
    const dir = oldStore(40_000);
    const first = startStoreProcess(['migrated', dir, 'u1'], { script: './fault-process.ts' });
    await first.waitFor((line) => line.includes('"migrating"') || line.startsWith('exited'));
    expect(existsSync(join(dir, 'u1.sqlite-migrate'))).toBe(true);
    const second = startStoreProcess(['migrated', dir, 'u1'], { script: './fault-process.ts' });
    const [a, b] = await Promise.all([first.exited, second.exited]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const heard = (lines: string[]) =>
      lines.filter((line) => line.startsWith('{"progress"')).map((line) => (JSON.parse(line) as { progress: { state: string; done: number; total: number; pid: number } }).progress);
    const waited = heard(second.lines);
    expect(waited.length, second.lines.join('\n')).toBeGreaterThan(0);
    expect(waited.every((progress) => progress.state === 'waiting' && progress.pid === first.child.pid && progress.done <= progress.total)).toBe(true);
    const last = heard(first.lines).at(-1)!;
    expect(last.state).toBe('migrating');
    expect(last.done).toBe(last.total);
    for (const process of [first, second]) expect(process.lines).toContain(JSON.stringify({ count: 40_019 }));
    expect(existsSync(join(dir, 'u1.sqlite-migrate'))).toBe(false);
  });
});
