import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXPORT_FORMAT, EXPORT_VERSION, type ExportHeader, type JsonObject, type Memory, type MemoryRecord, type Namespace, type RememberInput } from '../src/index.ts';
import { decodeVector, encodeVector } from '../src/lifecycle/jsonl-format.ts';
import { hashingEmbedder } from '../../../test/kit/hashing-embedder.ts';
import { expectCode, fakeClock, fcSeed, openTestMemory, rowCount, type TestMemory } from './helpers.ts';

const user = 'u1';
const NAMESPACES: Namespace[] = [{ userId: user }, { userId: user, agentId: 'sales' }, { userId: user, agentId: 'sales', scope: 'q3' }];
const DAY = 86_400_000;

/** Every record of the user, all fields, in a stable order. */
async function everything(memory: Memory): Promise<MemoryRecord[]> {
  const all: MemoryRecord[] = [];
  for (const ns of NAMESPACES) all.push(...(await memory.list(ns, { limit: 1000 })).items);
  return all.sort((a, b) => (a.namespaceKey + a.id < b.namespaceKey + b.id ? -1 : 1));
}

/** The stored vectors by hash (model, hash and values). */
async function vectors(t: TestMemory): Promise<Record<string, number[] | null>> {
  const rows = (await t.stores()).vectors as Array<{ model: string; hash: string; vector: Float32Array | null }>;
  return Object.fromEntries(rows.map((row) => [`${row.model}/${row.hash}`, row.vector ? Array.from(row.vector) : null]));
}

const content = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== '');
const recordArb = fc.record({
  ns: fc.nat(NAMESPACES.length - 1),
  content,
  tags: fc.uniqueArray(fc.constantFrom('a', 'b', 'c', '标签', 'x y'), { maxLength: 3 }),
  metadata: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  importance: fc.double({ min: 0, max: 1, noNaN: true }),
  createdBefore: fc.integer({ min: 0, max: 90 * DAY }),
  ttl: fc.option(fc.integer({ min: 1, max: 365 * DAY }), { nil: undefined }),
  layer: fc.constantFrom('session' as const, 'long_term' as const, 'knowledge' as const),
});
const actionArb = fc.record({ update: fc.boolean(), recall: fc.boolean(), use: fc.boolean() });

describe('export and import (versioned JSONL)', () => {
  it('a round trip is lossless: every field of every record (and every vector when included) comes back, and a second export is byte-identical (seeded)', async () => {
    const seed = fcSeed('export/import round trip');
    await fc.assert(
      fc.asyncProperty(fc.array(recordArb, { minLength: 1, maxLength: 12 }), fc.array(actionArb, { minLength: 12, maxLength: 12 }), fc.boolean(), async (inputs, actions, withVectors) => {
        const clock = fakeClock();
        const source = await openTestMemory({ clock, ...(withVectors ? { embedder: hashingEmbedder() } : {}) });
        const now = clock.now();
        const written = await source.memory.rememberMany(
          inputs.map((r): RememberInput => ({ namespace: NAMESPACES[r.ns]!, content: r.content, tags: r.tags, metadata: r.metadata as JsonObject, importance: r.importance, createdAt: now - r.createdBefore, layer: r.layer, ...(r.ttl ? { ttl: r.ttl } : {}) })),
          { skipInvalid: true },
        );
        // Give the fields that only change later something to carry: versions, access statistics, tiers, provenance.
        for (const [i, result] of written.results.entries()) {
          const ns = result.record.namespace;
          const action = actions[i % actions.length]!;
          if (action.update) await source.memory.update(ns, result.id, { tags: [...result.record.tags, 'edited'].slice(0, 3) }).catch(() => undefined);
          if (action.recall) await source.memory.recall(ns, result.record.content, { k: 1 });
          if (action.use) await source.memory.markUsed(ns, [result.id]);
        }
        // An untouched near-duplicate pair: it goes cold and merges, so tier and mergedFrom travel too.
        await source.memory.remember({ namespace: NAMESPACES[0]!, content: 'Prefers phone calls', tags: ['contact'] });
        clock.advance(1);
        await source.memory.remember({ namespace: NAMESPACES[0]!, content: 'prefers phone calls!', tags: ['contact'] });
        clock.advance(40 * DAY);
        await source.memory.retier();
        for (const ns of NAMESPACES) await source.memory.consolidate(ns);
        await source.memory.whenEmbedded();
        await source.memory.sweep(); // expired records are not exported; their vectors go with them here

        const text = await source.memory.exportJsonl({ userId: user }, { vectors: withVectors });
        const target = await openTestMemory({ clock, ...(withVectors ? { embedder: hashingEmbedder() } : {}) });
        const result = await target.memory.importJsonl(text);
        const original = await everything(source.memory);
        expect(original.some((r) => r.tier === 'cold' && r.mergedFrom.length === 1)).toBe(true);
        expect(result).toMatchObject({ imported: original.length, deduplicated: 0, expired: 0, failures: [] });
        expect(await everything(target.memory)).toEqual(original);
        if (withVectors) expect(await vectors(target)).toEqual(await vectors(source));
        expect(await target.memory.exportJsonl({ userId: user }, { vectors: withVectors })).toBe(text);
        // Importing the same file again writes nothing new: every record is a duplicate.
        expect(await target.memory.importJsonl(text)).toMatchObject({ imported: 0, deduplicated: original.length });
        await source.memory.close();
        await target.memory.close();
      }),
      { seed, numRuns: 40 },
    );
  });

  it('the header says format, version, scope, record count and vector model; a namespace export holds only that namespace', async () => {
    const { memory } = await openTestMemory({ embedder: hashingEmbedder() });
    await memory.remember({ namespace: NAMESPACES[0]!, content: 'user level' });
    await memory.remember({ namespace: NAMESPACES[1]!, content: 'agent level' });
    await memory.remember({ namespace: NAMESPACES[1]!, content: 'gone soon', ttl: '1h' });
    await memory.whenEmbedded();
    const lines = (await memory.exportJsonl({ namespace: NAMESPACES[1]! }, { vectors: true })).trimEnd().split('\n');
    const header = JSON.parse(lines[0]!) as ExportHeader;
    expect(header).toEqual({ format: EXPORT_FORMAT, version: EXPORT_VERSION, exportedAt: expect.any(Number), scope: { namespace: NAMESPACES[1] }, records: 2, vectors: { model: 'test-hashing-64', dimension: 64 } });
    expect(lines.slice(1).map((line) => JSON.parse(line).record.content).sort()).toEqual(['agent level', 'gone soon']);
    expect(typeof JSON.parse(lines[1]!).vector).toBe('string');
    // Lines may come from a stream (an async iterable of lines, e.g. node:readline).
    const target = await openTestMemory({ embedder: hashingEmbedder() });
    expect((await target.memory.importJsonl((async function* () { yield* lines; })())).imported).toBe(2);
    const plain = (await memory.exportJsonl({ namespace: NAMESPACES[1]! })).split('\n');
    expect(JSON.parse(plain[0]!).vectors).toBeNull();
    expect('vector' in JSON.parse(plain[1]!)).toBe(false);
  });

  it('validates every line: bad lines are reported by number and nothing is written', async () => {
    const source = await openTestMemory();
    for (const [i, text] of ['one', 'two', 'three', 'four'].entries()) await source.memory.remember({ namespace: NAMESPACES[0]!, content: text, id: `r${i}` });
    const lines = (await source.memory.exportJsonl({ namespace: NAMESPACES[0]! })).trimEnd().split('\n');
    const edit = (n: number, change: (line: { record: Record<string, unknown> }) => void) => {
      const line = JSON.parse(lines[n]!);
      change(line);
      return JSON.stringify(line);
    };
    const broken = [
      lines[0]!,
      lines[1]!,
      '{"record": {"id": "r9",',                                                        // 3: not JSON
      edit(3, (l) => void (l.record.importance = 3)),                                    // 4: out of range
      edit(4, (l) => void (l.record.content = 'four, changed')),                         // 5: hash no longer matches
    ];
    const target = await openTestMemory();
    const err = await expectCode(target.memory.importJsonl(broken.join('\n')), 'INVALID_INPUT');
    expect(err.details.lines?.map((f) => [f.line, f.issues[0]?.path])).toEqual([[3, ''], [4, 'record.importance'], [5, 'record.contentHash']]);
    expect(err.message).toContain('line 3');
    expect(await rowCount(target.place, target.name)).toBe(0);

    // skipInvalid writes the good lines, whole, and returns the bad ones.
    const partial = await target.memory.importJsonl(broken.join('\n'), { skipInvalid: true });
    expect(partial.ids).toEqual(['r0']);
    expect(partial.failures.map((f) => f.line)).toEqual([3, 4, 5]);
    expect(await target.memory.get(NAMESPACES[0]!, 'r0')).toEqual(await source.memory.get(NAMESPACES[0]!, 'r0'));
  });

  it('a truncated file, a wrong header or a record outside the scope is refused', async () => {
    const source = await openTestMemory();
    await source.memory.remember({ namespace: NAMESPACES[0]!, content: 'one' });
    await source.memory.remember({ namespace: NAMESPACES[0]!, content: 'two' });
    const lines = (await source.memory.exportJsonl({ namespace: NAMESPACES[0]! })).trimEnd().split('\n');
    const { memory } = await openTestMemory();
    const truncated = await expectCode(memory.importJsonl(lines.slice(0, 2)), 'INVALID_INPUT');
    expect(truncated.details.lines?.[0]).toMatchObject({ line: 1, issues: [{ path: 'records' }] });
    const header = JSON.parse(lines[0]!);
    const firstBadLine = async (source: string | string[]) => (await expectCode(memory.importJsonl(source), 'INVALID_INPUT')).details.lines?.[0];
    expect(await firstBadLine([JSON.stringify({ ...header, version: 2 }), ...lines.slice(1)])).toMatchObject({ line: 1, issues: [{ path: 'version' }] });
    expect(await firstBadLine(lines.slice(1))).toMatchObject({ line: 1, issues: [{ path: 'format' }] });
    expect(await firstBadLine('')).toMatchObject({ line: 1 });
    expect(await firstBadLine([JSON.stringify({ ...header, scope: { namespace: NAMESPACES[1] } }), ...lines.slice(1)])).toMatchObject({ line: 2, issues: [{ path: 'record.namespace' }] });
    await expectCode(memory.importJsonl(42 as never), 'INVALID_INPUT');
    await expectCode(memory.importJsonl([lines[0]!, 7 as never]), 'INVALID_INPUT');
    await expectCode(memory.importJsonl(lines.join('\n'), { merge: true } as never), 'INVALID_INPUT');
    await expectCode(memory.exportJsonl({} as never), 'NAMESPACE_REQUIRED');
    await expectCode(memory.exportJsonl({ userId: user }, { vectors: true }), 'INVALID_INPUT', 'vectors'); // no embedder
    expect(await memory.count(NAMESPACES[0]!)).toBe(0);
  });

  it('vectors: a line with a malformed vector is bad; vectors of another model are kept under that model', async () => {
    const source = await openTestMemory({ embedder: hashingEmbedder({ dimension: 16 }) });
    await source.memory.remember({ namespace: NAMESPACES[0]!, content: 'one two three' });
    await source.memory.whenEmbedded();
    const lines = (await source.memory.exportJsonl({ namespace: NAMESPACES[0]! }, { vectors: true })).trimEnd().split('\n');
    const line = JSON.parse(lines[1]!);
    const target = await openTestMemory({ embedder: hashingEmbedder() }); // a 64-d model
    const bad = await expectCode(target.memory.importJsonl([lines[0]!, JSON.stringify({ ...line, vector: line.vector.slice(8) })]), 'INVALID_INPUT');
    expect(bad.details.lines?.[0]).toMatchObject({ line: 2, issues: [{ path: 'vector' }] });
    await target.memory.importJsonl(lines);
    await target.memory.whenEmbedded();
    expect(Object.keys(await vectors(target)).map((k) => k.split('/')[0]).sort()).toEqual(['test-hashing-16', 'test-hashing-64']);
    expect((await target.memory.recall(NAMESPACES[0]!, 'two')).vector).toBe('used'); // embedded again with its own model
  });

  it('vectors: an imported vector is stored at unit length (recall takes its dot product as cosine); a zero vector is a bad line', async () => {
    const embedder = hashingEmbedder({ dimension: 16 });
    const source = await openTestMemory({ embedder });
    await source.memory.remember({ namespace: NAMESPACES[0]!, content: 'one two three' });
    await source.memory.whenEmbedded();
    const lines = (await source.memory.exportJsonl({ namespace: NAMESPACES[0]! }, { vectors: true })).trimEnd().split('\n');
    const line = JSON.parse(lines[1]!);
    const unit = decodeVector(line.vector, 16)!;
    const withVector = (vector: Float32Array) => [lines[0]!, JSON.stringify({ ...line, vector: encodeVector(vector) })];

    const zero = await openTestMemory({ embedder });
    const bad = await expectCode(zero.memory.importJsonl(withVector(new Float32Array(16))), 'INVALID_INPUT');
    expect(bad.details.lines?.[0]).toMatchObject({ line: 2, issues: [{ path: 'vector' }] });
    expect(await zero.memory.count(NAMESPACES[0]!)).toBe(0);

    const target = await openTestMemory({ embedder });
    await target.memory.importJsonl(withVector(unit.map((x) => x * 3)));
    const [stored] = Object.values(await vectors(target));
    expect(stored!.reduce((sum, x) => sum + x * x, 0)).toBeCloseTo(1, 5);
    stored!.forEach((x, i) => expect(x).toBeCloseTo(unit[i]!, 6));
    expect((await target.memory.recall(NAMESPACES[0]!, 'one two three')).hits[0]?.explain.cosine).toBeCloseTo(1, 1); // not 3
  });

  it('an expired record in the way (same id) is replaced, as remember replaces one', async () => {
    const clock = fakeClock();
    const source = await openTestMemory({ clock });
    await source.memory.remember({ namespace: NAMESPACES[0]!, id: 'a', content: 'Fresh fact' });
    const text = await source.memory.exportJsonl({ namespace: NAMESPACES[0]! });
    const target = await openTestMemory({ clock });
    await target.memory.remember({ namespace: NAMESPACES[0]!, id: 'a', content: 'Stale fact', ttl: '1h' });
    clock.advance(2 * 3_600_000);
    expect(await target.memory.importJsonl(text)).toMatchObject({ imported: 1, ids: ['a'] });
    expect((await target.memory.get(NAMESPACES[0]!, 'a'))?.content).toBe('Fresh fact');
    expect((await target.memory.audit(NAMESPACES[0]!)).map((e) => e.op)).toEqual(['remember', 'expire', 'remember']);
  });

  it('dedupes by content hash like remember, refuses an id holding other content (CONFLICT), skips expired records', async () => {
    const clock = fakeClock();
    const source = await openTestMemory({ clock });
    await source.memory.remember({ namespace: NAMESPACES[0]!, id: 'a', content: 'Prefers phone calls', importance: 0.9 });
    await source.memory.remember({ namespace: NAMESPACES[0]!, id: 'b', content: 'Lives in Lyon' });
    await source.memory.remember({ namespace: NAMESPACES[0]!, id: 'c', content: 'Short-lived', ttl: '1h' });
    const text = await source.memory.exportJsonl({ namespace: NAMESPACES[0]! });

    const target = await openTestMemory({ clock });
    await target.memory.remember({ namespace: NAMESPACES[0]!, id: 'mine', content: 'Prefers  phone calls', importance: 0.2 });
    clock.advance(2 * 3_600_000);
    const result = await target.memory.importJsonl(text);
    expect(result).toMatchObject({ imported: 1, deduplicated: 1, expired: 1, ids: ['b'] });
    expect((await target.memory.get(NAMESPACES[0]!, 'mine'))?.importance).toBe(0.9); // the higher importance is kept
    expect(await target.memory.get(NAMESPACES[0]!, 'a')).toBeUndefined();

    const other = await openTestMemory({ clock });
    await other.memory.remember({ namespace: NAMESPACES[0]!, id: 'b', content: 'Something else entirely' });
    const err = await expectCode(other.memory.importJsonl(text), 'CONFLICT');
    expect(err.details.lines?.map((f) => f.line)).toEqual([3]);
    expect(await other.memory.count(NAMESPACES[0]!)).toBe(1); // nothing written
  });
});
