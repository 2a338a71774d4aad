import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * The heap a restored index costs per memory (records, words, ids), measured in a fresh
 * process with `--expose-gc` (this one's heap holds what other tests left): the part of
 * every process's open that grows with the store (100k memories, docs/benchmarks/2026-12-06-openfast.md).
 */
function heapPerRestoredMemory(): { bytes: number } {
  const script = `
    import { NamespaceIndex } from './src/search/namespace-index.ts';
    import { captureSnapshot, restoreSnapshot } from './src/search/index-snapshot.ts';
    import { deserialize, serialize } from 'node:v8';
    const n = 10_000;
    function stored() {
    const words = ['doctor', 'appointment', 'tuesday', 'garden', 'blue', 'car', 'office', 'plane', 'coffee', 'sister'];
    const index = new NamespaceIndex();
    index.addMany(Array.from({ length: n }, (_, i) => ({
      id: '01J' + String(i).padStart(23, '0'), namespace: { userId: 'u1' }, namespaceKey: 'u=u1',
      content: 'memory ' + i + ' about ' + words[i % 10] + ' and ' + words[(i * 7) % 10] + ' on day ' + (i % 365), source: 'user', layer: 'long_term',
      tags: [], metadata: {}, importance: 0.5, createdAt: 1_700_000_000_000 + i, updatedAt: 1_700_000_000_000 + i,
      expiresAt: null, accessCount: i % 3, lastAccessedAt: i % 3 ? 1_700_000_100_000 + i : null,
      contentHash: String(i).padStart(64, 'a'), version: 1, tier: 'hot', mergedFrom: [], key: null,
      validFrom: null, validUntil: null, closedBy: null,
    })));
    return serialize(captureSnapshot('u=u1', index, undefined)); // as a store holds it
    }
    const row = deserialize(stored());
    globalThis.gc();
    const before = process.memoryUsage().heapUsed;
    const restored = await restoreSnapshot(row, undefined);
    globalThis.gc();
    const after = process.memoryUsage().heapUsed;
    const hit = restored.index.text.search('doctor tuesday', 5)[0];
    const record = restored.index.records.get(hit.id);
    if (record.content.indexOf('memory ') !== 0 || restored.index.records.size !== n) throw new Error('not restored');
    console.log(JSON.stringify({ bytes: (after - before) / n }));`;
  const child = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: new URL('..', import.meta.url),
    encoding: 'utf8',
  });
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout) as { bytes: number };
}

describe('a restored index', () => {
  it('costs a few hundred bytes of heap a memory: records stay in their columns until one is asked for', () => {
    const { bytes } = heapPerRestoredMemory();
    console.log(`heap per restored memory: ${Math.round(bytes)} bytes`);
    // Its strings (id, content, hash: ~200 bytes here) and the id maps; a record object each was ~250 more (576 bytes a memory in all).
    expect(bytes).toBeLessThan(450);
  });
});
