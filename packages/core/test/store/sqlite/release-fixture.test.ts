import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemory } from '../../../src/index.node.ts';
import { runStoreProcess } from './run-store-process.ts';

// A store written by the release before stores were shared (main at e57c751, made by
// fixtures/make-release-fixture.ts): its file format is this release's, so it opens as it
// is, in several processes at once, with nothing to migrate.
const FIXTURE = fileURLToPath(new URL('./fixtures/release-e57c751.sqlite', import.meta.url));
const IDS = ['01KDVDNAZ844H142J5H9RRQ9VP', '01KDVDNCXRC93R5ABTJ554AWVE', '01KDVDNEW81ZGY13M7ZQY0A9Y8'];
const ns = { userId: 'u1' };

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('a store of the previous release', { timeout: 60_000 }, () => {
  it('opens with every record, update and forget as that release left them, recalls, writes on, and is shared with another process', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zeromem-release-'));
    dirs.push(dir);
    copyFileSync(FIXTURE, join(dir, 'u1.sqlite')); // store-process.ts reads namespace u1 of store <name>
    const memory = await openMemory({ name: 'u1', directory: dir });
    expect(await memory.count(ns)).toBe(19);
    expect((await memory.get(ns, IDS[0]!))?.content).toBe('Fixture memory 0, updated');
    expect(await memory.get(ns, IDS[1]!)).toBeUndefined();
    expect((await memory.get(ns, IDS[2]!))?.metadata).toEqual({ n: 2 });
    expect(await memory.count({ userId: 'u2', agentId: 'a' })).toBe(1);
    expect((await memory.list(ns, { tags: { any: ['t1'] }, limit: 50 })).items).toHaveLength(6); // 1, 4, ..., 19 but the forgotten 1
    expect((await memory.recall(ns, 'piano')).hits.map((hit) => hit.record.content)).toContain('Fixture memory 2 about piano');
    const seqs = (await memory.audit(ns)).map((entry) => entry.seq);
    const { id } = await memory.remember({ namespace: ns, content: 'Written by this release' });
    expect((await memory.audit(ns)).find((entry) => entry.id === id)!.seq).toBeGreaterThan(Math.max(...seqs));
    const other = JSON.parse((await runStoreProcess(['read', dir, 'u1'])).at(-1)!) as { count: number; ids: string[] };
    expect(other.count).toBe(20);
    expect(other.ids).toContain(id);
    await memory.close();
  });
});
