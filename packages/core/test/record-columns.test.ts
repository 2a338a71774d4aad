import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * The heap a restored record costs, measured in a fresh process with `--expose-gc` (this
 * one's heap holds what other tests left). Records read back one field at a time by key
 * ended in V8's dictionary mode: ~1.9 KB each, most of a restored index's heap.
 */
function heapPerRestoredRecord(): number {
  const script = `
    import { fromColumns, toColumns } from './src/search/record-columns.ts';
    const n = 10_000;
    const records = Array.from({ length: n }, (_, i) => ({
      id: '01J' + String(i).padStart(23, '0'), namespace: { userId: 'u1' }, namespaceKey: 'u=u1',
      content: 'memory number ' + i + ' about a doctor appointment on a Tuesday', source: 'user', layer: 'long_term',
      tags: [], metadata: {}, importance: 0.5, createdAt: 1_700_000_000_000 + i, updatedAt: 1_700_000_000_000 + i,
      expiresAt: null, accessCount: i % 3, lastAccessedAt: i % 3 ? 1_700_000_100_000 + i : null,
      contentHash: String(i).padStart(64, 'a'), version: 1, tier: 'hot', mergedFrom: [], key: null,
      validFrom: null, validUntil: null, closedBy: null, statedUntil: null,
    }));
    const columns = toColumns(records, 'u=u1');
    records.length = 0;
    globalThis.gc();
    const before = process.memoryUsage().heapUsed;
    const restored = fromColumns(columns);
    globalThis.gc();
    const after = process.memoryUsage().heapUsed;
    console.log(JSON.stringify({ bytes: (after - before) / n, count: restored.length }));`;
  const child = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: new URL('..', import.meta.url),
    encoding: 'utf8',
  });
  expect(child.status, child.stderr).toBe(0);
  const { bytes, count } = JSON.parse(child.stdout) as { bytes: number; count: number };
  expect(count).toBe(10_000);
  return bytes;
}

describe('record columns', () => {
  it('restore records that cost well under a kilobyte of heap each (strings included)', () => {
    const bytes = heapPerRestoredRecord();
    console.log(`heap per restored record: ${Math.round(bytes)} bytes`);
    expect(bytes).toBeLessThan(1000);
  });
});
