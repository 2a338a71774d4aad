import { describe, expect, it } from 'vitest';
import { ZeromemError } from '../src/index.ts';
import { openTestMemory } from './helpers.ts';
import { DEFAULT_LIMITS } from '../src/model/limits.ts';
import { validateRemember } from '../src/model/validate-remember.ts';
import { fromRow, toRow } from '../src/store/row.ts';
import { newRow } from '../src/verbs/remember.ts';

const ns = { userId: 'u1' };

describe('remember', () => {
  it('stores a record with defaults and returns it durable', async () => {
    const { memory, clock } = await openTestMemory();
    const { id, deduplicated, record } = await memory.remember({ namespace: ns, content: 'Prefers phone calls' });
    expect(deduplicated).toBe(false);
    expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(record).toMatchObject({
      namespace: ns,
      namespaceKey: 'u=u1',
      content: 'Prefers phone calls',
      source: 'user',
      layer: 'long_term',
      tags: [],
      metadata: {},
      importance: 0.5,
      createdAt: clock.now(),
      updatedAt: clock.now(),
      expiresAt: null,
      accessCount: 0,
      lastAccessedAt: null,
      version: 1,
    });
    expect(record.contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await memory.get(ns, id)).toEqual(record);
  });

  it('deduplicates normalized content, keeping the higher importance and the later expiry', async () => {
    const { memory } = await openTestMemory();
    const first = await memory.remember({ namespace: ns, content: 'Charging port  is loose', importance: 0.3, ttl: '1d' });
    const again = await memory.remember({ namespace: ns, content: ' Charging port is loose ', importance: 0.9, ttl: '3d' });
    expect(again.deduplicated).toBe(true);
    expect(again.id).toBe(first.id);
    expect(again.record.importance).toBe(0.9);
    expect(again.record.expiresAt).toBe(first.record.createdAt + 3 * 86_400_000);
    const lower = await memory.remember({ namespace: ns, content: 'Charging port is loose', importance: 0.1 });
    expect(lower.record.importance).toBe(0.9);
    expect(lower.record.expiresAt).toBeNull(); // no expiry beats any expiry
    expect(await memory.count(ns)).toBe(1);
  });

  it('does not deduplicate across namespaces', async () => {
    const { memory } = await openTestMemory();
    const a = await memory.remember({ namespace: ns, content: 'same' });
    const b = await memory.remember({ namespace: { userId: 'u1', agentId: 'support' }, content: 'same' });
    expect(b.deduplicated).toBe(false);
    expect(b.id).not.toBe(a.id);
  });

  it('refuses a caller id that holds other content, and is idempotent for the same content', async () => {
    const { memory } = await openTestMemory();
    await memory.remember({ namespace: ns, id: 'wo-1', content: 'Work order TS20240315' });
    const retry = await memory.remember({ namespace: ns, id: 'wo-1', content: 'Work order TS20240315' });
    expect(retry).toMatchObject({ id: 'wo-1', deduplicated: true });
    const err = await memory.remember({ namespace: ns, id: 'wo-1', content: 'something else' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ZeromemError);
    expect((err as ZeromemError).code).toBe('CONFLICT');
    expect((await memory.get(ns, 'wo-1'))?.content).toBe('Work order TS20240315');
  });

  it('takes createdAt for imports and anchors ttl on it', async () => {
    const { memory, clock } = await openTestMemory();
    const createdAt = clock.now() - 1000;
    const { record } = await memory.remember({ namespace: ns, content: 'old', createdAt: new Date(createdAt).toISOString(), ttl: '1h' });
    expect(record.createdAt).toBe(createdAt);
    expect(record.expiresAt).toBe(createdAt + 3_600_000);
  });

  it('enforces the per-namespace quota without writing anything', async () => {
    const { memory } = await openTestMemory({ limits: { maxRecordsPerNamespace: 2 } });
    await memory.rememberMany([
      { namespace: ns, content: 'a' },
      { namespace: ns, content: 'b' },
    ]);
    const err = await memory.remember({ namespace: ns, content: 'c' }).catch((e: unknown) => e);
    expect((err as ZeromemError).code).toBe('QUOTA_EXCEEDED');
    expect(await memory.count(ns)).toBe(2);
    // a duplicate adds nothing, so it is fine at the limit
    expect((await memory.remember({ namespace: ns, content: 'a' })).deduplicated).toBe(true);
  });
});

describe('rememberMany', () => {
  it('writes a batch atomically and reports progress', async () => {
    const { memory } = await openTestMemory();
    const progress: number[] = [];
    const inputs = Array.from({ length: 4500 }, (_, i) => ({ namespace: ns, content: `fact ${i}` }));
    const { results, failures } = await memory.rememberMany(inputs, { onProgress: (p) => progress.push(p.done) });
    expect(failures).toEqual([]);
    expect(results).toHaveLength(4500);
    expect(results.map((r) => r.index)).toEqual(inputs.map((_, i) => i));
    expect(progress).toEqual([2000, 4000, 4500]);
    expect(await memory.count(ns)).toBe(4500);
  });

  it('rejects the whole batch listing every bad item, and writes nothing', async () => {
    const { memory } = await openTestMemory();
    const err = (await memory
      .rememberMany([
        { namespace: ns, content: 'ok' },
        { namespace: ns, content: '' },
        { namespace: ns, content: 'ok 2' },
        { content: 'no namespace' } as never,
      ])
      .catch((e: unknown) => e)) as ZeromemError;
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.details.items?.map((i) => [i.index, i.code])).toEqual([
      [1, 'INVALID_INPUT'],
      [3, 'NAMESPACE_REQUIRED'],
    ]);
    expect(await memory.count(ns)).toBe(0);
  });

  it('with skipInvalid writes the valid items and returns the failures', async () => {
    const { memory } = await openTestMemory();
    const { results, failures } = await memory.rememberMany(
      [{ namespace: ns, content: 'ok' }, { namespace: ns, content: 'x', importance: 2 }, { namespace: ns, content: 'ok' }],
      { skipInvalid: true },
    );
    expect(results.map((r) => [r.index, r.deduplicated])).toEqual([
      [0, false],
      [2, true],
    ]);
    expect(results[1]!.id).toBe(results[0]!.id);
    expect(failures.map((f) => [f.index, f.code, f.issues[0]!.path])).toEqual([[1, 'INVALID_INPUT', 'importance']]);
    expect(await memory.count(ns)).toBe(1);
  });

  it('rolls back the whole batch on an id conflict', async () => {
    const { memory } = await openTestMemory();
    await memory.remember({ namespace: ns, id: 'taken', content: 'first' });
    const err = (await memory
      .rememberMany([
        { namespace: ns, content: 'new one' },
        { namespace: ns, id: 'taken', content: 'second' },
      ])
      .catch((e: unknown) => e)) as ZeromemError;
    expect(err.code).toBe('CONFLICT');
    expect(await memory.count(ns)).toBe(1);
  });

  it('gives every in-batch duplicate the final state of its record, new or stored, with one audit entry per change', async () => {
    const { memory } = await openTestMemory();
    const stored = await memory.remember({ namespace: ns, content: 'stored fact', importance: 0.1 });
    const { results } = await memory.rememberMany([
      { namespace: ns, content: 'new fact', importance: 0.2 },
      { namespace: ns, content: 'stored fact', importance: 0.5 },
      { namespace: ns, content: 'other fact' },
      { namespace: ns, content: '  new   fact ', importance: 0.9 },
      { namespace: ns, content: 'stored fact', importance: 0.7 },
    ]);
    expect(results.map((r) => [r.index, r.deduplicated])).toEqual([
      [0, false],
      [1, true],
      [2, false],
      [3, true],
      [4, true],
    ]);
    expect(results[3]!.id).toBe(results[0]!.id);
    expect([results[1]!.id, results[4]!.id]).toEqual([stored.id, stored.id]);
    for (const result of results) expect(result.record).toEqual(await memory.get(ns, result.id));
    expect(results.map((r) => r.record.importance)).toEqual([0.9, 0.7, 0.5, 0.9, 0.7]);
    expect(results[1]!.record.version).toBe(3); // raised twice: two versions
    const entries = await memory.audit(ns);
    expect(entries.map((e) => [e.op, e.id])).toEqual([
      ['remember', stored.id],
      ['remember', results[0]!.id],
      ['remember', results[2]!.id],
      ['update', stored.id],
    ]);
  });
});

describe("a new record's row", () => {
  it('is what toRow makes of its record, field for field and in the same order (the stored bytes)', () => {
    const inputs = [
      { namespace: { userId: 'u1', agentId: 'a' }, content: 'Likes tea', tags: ['x'], metadata: { a: 1 }, importance: 0.7, ttl: 60_000 },
      { namespace: ns, content: 'Lives in Oslo', key: 'home.city', validUntil: 2_000_000 },
      { namespace: ns, content: 'plain' },
    ];
    for (const input of inputs) {
      const checked = validateRemember(input, DEFAULT_LIMITS, 1_000_000);
      if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
      const row = newRow(checked.value, 'ID1', 'f'.repeat(64));
      const record = fromRow(row);
      expect(JSON.stringify(row)).toBe(JSON.stringify(toRow(record)));
      expect(record).toMatchObject({ id: 'ID1', content: input.content, key: input.key ?? null, contentHash: 'f'.repeat(64), version: 1, tier: 'hot', mergedFrom: [] });
    }
  });
});
