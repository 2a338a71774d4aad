import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { openSqliteStore } from '../../../src/store/sqlite/sqlite-engine.ts';
import { snapshotBody, snapshotOf } from '../../../src/store/sqlite/sqlite-rows.ts';

/** Every typed array in a decoded value, with its path. */
function typedArrays(value: unknown, path = ''): Array<[string, ArrayBufferView]> {
  if (ArrayBuffer.isView(value)) return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((item, i) => typedArrays(item, `${path}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => typedArrays(item, `${path}.${key}`));
  return [];
}

// A body shaped like an index snapshot: arrays of every width after odd-length strings
// and byte arrays, so a layout without padding puts the wider ones off their alignment.
const row = {
  ns: 'u=a',
  lastSeq: 7,
  format: 5,
  model: 'm',
  records: { ids: '["a","b","c"]', flags: new Uint8Array([1, 2, 3]), numbers: new Float64Array([1.5, Number.NaN, -0]), restOf: new Int32Array([0, 1, 0]) },
  text: { terms: '["x"]', tfs: new Uint16Array([1, 2, 3]), docs: new Int32Array([0, 1, 2]), empty: new Float32Array(0) },
  vectors: { dimension: 3, spans: [{ start: 0, end: 3, rows: new Int32Array([2, 0, 1]), floats: new Float32Array([0.5, 0.25, -1, 1e-30, 3, 4, 5, 6, 7]) }] },
};

describe('index snapshot bodies on SQLite', () => {
  it('read back, every typed array is a view of the stored bytes (no copy, aligned), and the values are equal', () => {
    const body = snapshotBody(row);
    const stored = Buffer.alloc(body.byteLength); // as better-sqlite3 hands a blob out: a buffer of its own
    body.copy(stored);
    const back = snapshotOf(row.ns, row.lastSeq, stored) as unknown as typeof row;
    expect(back).toEqual(row);
    const arrays = typedArrays(back);
    expect(arrays.length).toBe(8);
    for (const [path, array] of arrays) {
      // A copy per array would double what a restore holds (100k memories: +62 MB of float rows copied off their alignment).
      expect({ path, sharesTheRow: array.buffer === stored.buffer }).toEqual({ path, sharesTheRow: true });
      expect(array.byteOffset % ((array as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT)).toBe(0);
    }
  });

  it('reads the bodies of earlier releases (node:v8 bytes of the whole row)', () => {
    const { ns: _ns, lastSeq: _lastSeq, ...rest } = row;
    const back = snapshotOf(row.ns, row.lastSeq, serialize(rest));
    expect(back).toEqual(row);
  });

  it('a snapshot larger than the store takes is not stored, and the stale one goes: the next open rebuilds (a 1M-memory namespace passed SQLite\'s 1 GB blob limit and close() rejected)', async () => {
    const small = { ...row, ns: 'u=small' };
    const probe = snapshotBody(small).byteLength;
    const store = await openSqliteStore(mkdtempSync(join(tmpdir(), 'zeromem-snapshot-limit-')), 'test', { durability: 'relaxed', maxSnapshotBytes: probe + 10 });
    try {
      await store.write(async (tx) => tx.putSnapshot(small));
      const big = { ...small, lastSeq: 8, text: { ...small.text, terms: JSON.stringify(['y'.repeat(64)]) } };
      await store.write(async (tx) => tx.putSnapshot(big)); // resolves: a snapshot is a cache, never worth a failed close
      expect(await store.read(async (tx) => tx.getSnapshot('u=small'))).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
