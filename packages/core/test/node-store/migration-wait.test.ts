/**
 * A large store of the format before the SQLite engine is migrated by the first process that
 * opens it, in one transaction that holds the write lock for a long time (issue 29 item 8):
 * the others wait for it and hear how far it came, instead of failing as `locked`.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { contentHashNow } from '../../src/model/content-hash.ts';
import { toRow } from '../../src/store/row.ts';
import { startStoreProcess } from './run-store-process.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/release-e57c751.sqlite', import.meta.url));
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3');
const ns = { userId: 'u1' };

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The old fixture as store `agent` with `extra` more records in the old tables (values whole, as the old reader takes them). */
function oldStore(extra: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-migrate-wait-'));
  dirs.push(dir);
  copyFileSync(FIXTURE, join(dir, 'agent.sqlite'));
  const db = new Database(join(dir, 'agent.sqlite'));
  const [records] = db.prepare("SELECT id FROM stores WHERE name = 'records'").raw().get() as [number];
  const insert = db.prepare('INSERT INTO rows (store, key, ix, json, bytes) VALUES (?, ?, NULL, ?, NULL)');
  db.transaction(() => {
    for (let i = 0; i < extra; i++) {
      const id = `OLD${String(i).padStart(8, '0')}`;
      const at = Date.UTC(2026, 0, 2) + i;
      const content = `Old memory ${i} with a few more words in it`;
      const row = toRow({ id, namespace: ns, namespaceKey: 'u=u1', content, source: 'user', layer: 'long_term', tags: [`t${i % 3}`], metadata: { i }, importance: 0.5, createdAt: at, updatedAt: at, expiresAt: null, accessCount: 0, lastAccessedAt: null, contentHash: contentHashNow(content)!, version: 1, tier: 'hot', mergedFrom: [], key: null, validFrom: null, validUntil: null, closedBy: null, statedUntil: null });
      insert.run(records, Buffer.from(`u=u1/${id}`), JSON.stringify(row));
    }
  })();
  db.close();
  return dir;
}

describe('a migration another process runs', { timeout: 300_000 }, () => {
  it('is waited for by a second opener, which hears how far it came and then opens the migrated store', async () => {
    const dir = oldStore(40_000);
    const first = startStoreProcess(['migrated', dir, 'agent'], { script: './fault-process.ts' });
    await first.waitFor((line) => line.includes('"migrating"') || line.startsWith('exited'));
    expect(existsSync(join(dir, 'agent.sqlite-migrate'))).toBe(true);
    const second = startStoreProcess(['migrated', dir, 'agent'], { script: './fault-process.ts' });
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
    expect(existsSync(join(dir, 'agent.sqlite-migrate'))).toBe(false);
  });
});
