import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Embedder, Memory, RecallResult } from '../src/index.ts';
import { fromColumns, toColumns } from '../src/search/record-columns.ts';
import { memoryInternals } from '../src/test-hooks.ts';
import { captureSnapshot, restoreSnapshot, type IndexSnapshotRow } from '../src/search/index-snapshot.ts';
import { NamespaceIndex } from '../src/search/namespace-index.ts';
import type { StoredSnapshot } from '../src/store/port.ts';
import { hashingEmbedder } from '../../../test/kit/hashing-embedder.ts';
import { expectCode, fakeClock, fcSeed, openMemoryAt, openStoreAt, openTestMemory, readStores, type FakeClock, type StorePlace } from './helpers.ts';
import { replaying } from '../../../test/kit/seed.ts';

const ns = { userId: 'u1' };
const nsKey = 'u=u1';
/** Snapshots for every namespace, written as soon as they are due. */
const eager = { minRecords: 1, delayMs: 0 };

const WORDS = ['port', 'charging', 'loose', 'battery', 'screen', 'refund', 'warranty', 'phone', 'call', 'email', 'blue', 'order', 'delivery', 'late'];

function sentence(seed: number): string {
  const words: string[] = [];
  for (let i = 0; i < 4; i++) words.push(WORDS[(seed * 7 + i * 13 + ((seed >> 3) % 5)) % WORDS.length]!);
  return `${words.join(' ')} ${seed}`;
}

/** What recall answered, without the record objects (ids, scores, how vectors took part). */
function answer(result: RecallResult) {
  return { vector: result.vector, hits: result.hits.map((hit) => [hit.id, Number(hit.score.toFixed(9))]) };
}

/** The stored snapshot rows, their contents as text (stored as UTF-8 bytes) so a check for a forgotten word sees them. */
async function snapshotRows(memory: { place: StorePlace; name: string }) {
  const rows = (await readStores(memory.place, memory.name))['indexSnapshots'] as Array<{ ns: string; lastSeq: number; records?: { ids: string; contents: string | Uint8Array } }>;
  return rows.map((row) =>
    row.records && row.records.contents instanceof Uint8Array ? { ...row, records: { ...row.records, contents: new TextDecoder().decode(row.records.contents) } } : row,
  ) as Array<{ ns: string; lastSeq: number; records: { ids: string; contents: string } }>;
}

/** Resolves once the memory has written every snapshot that is due (they are written in the background). */
async function snapshotsWritten(memory: Memory): Promise<void> {
  await memoryInternals.get(memory)!.indexes.snapshotsIdle();
}

async function reopen(place: StorePlace, clock: FakeClock, snapshots: false | object = eager): Promise<Memory> {
  return openMemoryAt(place, { name: 'test', clock, embedder: hashingEmbedder(), indexSnapshots: snapshots });
}

describe('index snapshots', () => {
  it('of a loaded namespace wait while its vectors are still being embedded, then one is written', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const inner = hashingEmbedder();
    const gated: Embedder = { ...inner, embed: (texts, kind) => (kind === 'document' ? gate.then(() => inner.embed(texts, kind)) : inner.embed(texts, kind)) };
    const test = await openTestMemory({ embedder: gated, indexSnapshots: { minRecords: 1, delayMs: 20 } });
    await test.memory.recall(ns, 'port'); // loads the index: it follows the writes
    await test.memory.rememberMany(Array.from({ length: 50 }, (_, i) => ({ namespace: ns, content: sentence(i) })));
    await test.memory.recall(ns, 'port'); // caught up with them: a snapshot is due
    await new Promise((resolve) => setTimeout(resolve, 150)); // fewer than its 12 waits of 20 ms, however late timers fire
    expect(await snapshotRows(test)).toEqual([]);
    release();
    await test.memory.whenEmbedded();
    await snapshotsWritten(test.memory);
    const rows = await snapshotRows(test);
    expect(rows.map((row) => row.ns)).toEqual([nsKey]);
    await test.memory.close();
  });

  it('are written after the first build and restored by the next instance, which then reads no rows', async () => {
    const test = await openTestMemory({ embedder: hashingEmbedder(), indexSnapshots: eager });
    await test.memory.rememberMany(Array.from({ length: 50 }, (_, i) => ({ namespace: ns, content: sentence(i) })));
    await test.memory.whenEmbedded();
    const before = answer(await test.memory.recall(ns, 'loose charging port', { trackAccess: false }));
    await test.memory.close();
    const [row] = await snapshotRows(test);
    expect(row?.ns).toBe(nsKey);
    expect(JSON.parse(row!.records.ids)).toHaveLength(50);

    // Rows deleted behind zeromem's back (no audit entry): only a restored snapshot still knows them.
    const raw = await openStoreAt(test.place, 'test');
    await raw.write(async (tx) => tx.deleteRecords((await tx.namespaceRecords(nsKey)).map((row) => [row.ns, row.id] as const)));
    raw.close();
    const next = await reopen(test.place, test.clock);
    expect(answer(await next.recall(ns, 'loose charging port', { trackAccess: false }))).toEqual(before);
    await next.close();
  });

  it('are caught up with what other instances wrote, updated and forgot since', async () => {
    const test = await openTestMemory({ embedder: hashingEmbedder(), indexSnapshots: eager });
    const { results } = await test.memory.rememberMany(Array.from({ length: 40 }, (_, i) => ({ namespace: ns, content: sentence(i) })));
    await test.memory.recall(ns, 'port');
    await test.memory.close();
    expect(await snapshotRows(test)).toHaveLength(1);

    const other = await reopen(test.place, test.clock, false);
    await other.remember({ namespace: ns, content: 'the loose charging port came back' });
    await other.update(ns, results[3]!.id, { importance: 1, tags: ['vip'] });
    await other.update(ns, results[4]!.id, { content: 'battery swelling reported' });
    await other.forget(ns, results[5]!.id);
    await other.whenEmbedded();
    const expected = answer(await other.recall(ns, 'loose charging port battery', { trackAccess: false, k: 20 }));
    await other.close();

    const restored = await reopen(test.place, test.clock);
    expect(answer(await restored.recall(ns, 'loose charging port battery', { trackAccess: false, k: 20 }))).toEqual(expected);
    await restored.close();
  });

  it('go with a forget or a content change, and the next snapshot holds no trace of the old text', async () => {
    const test = await openTestMemory({ embedder: hashingEmbedder(), indexSnapshots: eager });
    await test.memory.rememberMany(Array.from({ length: 20 }, (_, i) => ({ namespace: ns, content: sentence(i) })));
    const secret = await test.memory.remember({ namespace: ns, content: 'door code 7319 zebra' });
    const changed = await test.memory.remember({ namespace: ns, content: 'password hunter2 kiwi' });
    await test.memory.recall(ns, 'door code');
    await snapshotsWritten(test.memory); // the due snapshot is written off the caller's path
    expect((await snapshotRows(test))[0]?.records.contents).toContain('zebra');

    await test.memory.forget(ns, secret.id);
    // Gone in the forget's own transaction (a fresh snapshot may already be written: without it).
    expect(JSON.stringify(await snapshotRows(test))).not.toContain('zebra');
    await test.memory.recall(ns, 'door code');
    await snapshotsWritten(test.memory);
    const rewritten = await snapshotRows(test);
    expect(rewritten).toHaveLength(1);
    expect(JSON.stringify(rewritten)).not.toContain('zebra');

    await test.memory.update(ns, changed.id, { content: 'password rotated' });
    expect(JSON.stringify(await snapshotRows(test))).not.toContain('hunter2');
    await test.memory.close();
    const final = JSON.stringify(await snapshotRows(test));
    expect(final).toContain('rotated');
    expect(final).not.toContain('hunter2');
    expect(final).not.toContain('zebra');
  });

  it('are deleted by a forget in its own transaction, before any rewrite', async () => {
    const lazy = { minRecords: 1, delayMs: 3_600_000 }; // background rewrites an hour later: only close() writes
    const test = await openTestMemory({ embedder: hashingEmbedder(), indexSnapshots: lazy });
    const { id } = await test.memory.remember({ namespace: ns, content: 'door code 7319 zebra' });
    await test.memory.remember({ namespace: ns, content: 'call back tomorrow' });
    await test.memory.recall(ns, 'door');
    await test.memory.close();
    expect(await snapshotRows(test)).toHaveLength(1);
    const next = await reopen(test.place, test.clock, lazy);
    await next.recall(ns, 'door'); // restored from the snapshot
    await next.forget(ns, id);
    expect(await snapshotRows(test)).toEqual([]);
    await next.close();
    const rewritten = JSON.stringify(await snapshotRows(test));
    expect(rewritten).toContain('tomorrow');
    expect(rewritten).not.toContain('zebra');
  });

  it('go with a tags or metadata change too, which may hold personal data', async () => {
    const test = await openTestMemory({ embedder: hashingEmbedder(), indexSnapshots: eager });
    const { id } = await test.memory.remember({ namespace: ns, content: 'call back', metadata: { phone: '555-0199' } });
    await test.memory.recall(ns, 'call');
    await test.memory.close();
    const next = await reopen(test.place, test.clock);
    await next.update(ns, id, { metadata: { phone: 'redacted' } });
    expect(await snapshotRows(test)).toEqual([]);
    await next.close();
    expect(JSON.stringify(await snapshotRows(test))).not.toContain('555-0199');
  });

  it('never bring back importance that aging or use changed without an audit entry', async () => {
    const DAY = 86_400_000;
    const test = await openTestMemory({ embedder: hashingEmbedder(), indexSnapshots: eager });
    const { results } = await test.memory.rememberMany(Array.from({ length: 10 }, (_, i) => ({ namespace: ns, content: sentence(i), importance: 0.9 })));
    await test.memory.recall(ns, 'port', { trackAccess: false });
    await test.memory.close();
    const importance = async (memory: Memory) => (await memory.recall(ns, sentence(3), { trackAccess: false, includeCold: true, k: 50 })).hits.find((hit) => hit.id === results[3]!.id)!.record.importance;

    // The namespace is not loaded while retier() ages it: its snapshot must go.
    test.clock.advance(20 * DAY); // decayed, still hot: no audit entry
    const aging = await reopen(test.place, test.clock);
    await aging.retier({ namespace: ns });
    const aged = (await aging.get(ns, results[3]!.id))!.importance;
    expect(aged).toBeLessThan(0.9);
    await aging.close();
    const afterAging = await reopen(test.place, test.clock);
    expect(await importance(afterAging)).toBe(aged);
    // Loaded while used: its index takes the gain and the snapshot written on close has it.
    await afterAging.markUsed(ns, [results[3]!.id]);
    const used = (await afterAging.get(ns, results[3]!.id))!.importance;
    expect(used).toBeGreaterThan(aged);
    await afterAging.close();
    const afterUse = await reopen(test.place, test.clock);
    expect(await importance(afterUse)).toBe(used);
    await afterUse.close();
  });

  it('restore vectors only for the model that made them; another model re-embeds', async () => {
    const test = await openTestMemory({ embedder: hashingEmbedder({ dimension: 32 }), indexSnapshots: eager });
    await test.memory.rememberMany(Array.from({ length: 30 }, (_, i) => ({ namespace: ns, content: sentence(i) })));
    await test.memory.whenEmbedded();
    await test.memory.recall(ns, 'port');
    await test.memory.close();

    const embedded: string[] = [];
    const next = await openMemoryAt(test.place, {
      name: 'test',
      clock: test.clock,
      embedder: hashingEmbedder({ dimension: 48, onEmbed: (texts) => embedded.push(...texts) }),
      indexSnapshots: eager,
    });
    await next.whenEmbedded();
    const result = await next.recall(ns, 'loose charging port', { trackAccess: false });
    expect(result.vector).toBe('used');
    expect(result.hits[0]!.explain.cosine).not.toBeNull();
    expect(embedded.filter((text) => text.startsWith('loose') || /\d$/.test(text)).length).toBeGreaterThanOrEqual(30);
    await next.close();
  });

  it('of another format (the one before included), with arrays that do not fit or with positions that are not the records\' are rebuilt from the memories', async () => {
    const test = await openTestMemory({ embedder: hashingEmbedder(), indexSnapshots: eager });
    await test.memory.rememberMany(Array.from({ length: 25 }, (_, i) => ({ namespace: ns, content: sentence(i) })));
    await test.memory.whenEmbedded();
    const expected = answer(await test.memory.recall(ns, 'refund warranty', { trackAccess: false }));
    await test.memory.close();
    const raw = await openStoreAt(test.place, 'test');
    const row = (await raw.read((tx) => tx.getSnapshot(nsKey))) as unknown as IndexSnapshotRow; // the table's rows are the index's format
    // A position past the records, or one record named twice, the counts unchanged.
    const past = (positions: Int32Array) => positions.map((at, i) => (i === 3 ? positions.length + 2 : at));
    const twice = (positions: Int32Array) => positions.map((at, i) => (i === 3 ? positions[4]! : at));
    for (const damaged of [
      { ...row, format: 99 },
      { ...row, format: 4 }, // the format before this one: rebuilt, not read
      { ...row, text: { ...row.text, slotRecords: past(row.text.slotRecords) } },
      { ...row, text: { ...row.text, slotRecords: twice(row.text.slotRecords) } },
      { ...row, vectors: { ...row.vectors!, idRecords: past(row.vectors!.idRecords) } },
      { ...row, vectors: { ...row.vectors!, idRecords: twice(row.vectors!.idRecords) } },
      { ...row, text: { ...row.text, docs: row.text.docs.subarray(1) } },
      { ...row, records: { ...row.records, contents: row.records.contents.slice(0, -5) } },
      { ...row, records: { ...row.records, hashes: (row.records.hashes as Uint8Array).slice(0, -1) } },
      { ...row, records: { ...row.records, restOf: row.records.restOf.map(() => 7) } },
    ]) {
      await raw.write((tx) => tx.putSnapshot(damaged as unknown as StoredSnapshot));
      const next = await reopen(test.place, test.clock, { minRecords: 1, delayMs: 60_000 });
      expect(answer(await next.recall(ns, 'refund warranty', { trackAccess: false }))).toEqual(expected);
      await next.close(); // writes a good snapshot again
      expect(((await raw.read((tx) => tx.getSnapshot(nsKey))) as unknown as IndexSnapshotRow).format).toBe(row.format);
    }
    raw.close();
  });

  it('restore (not rebuild) an index where some records have no vector yet, naming each of them once', async () => {
    const { memory } = await openTestMemory();
    const written = await memory.rememberMany(Array.from({ length: 6 }, (_, i) => ({ namespace: ns, content: sentence(i) })));
    await memory.close();
    const records = written.results.map((result) => result.record);
    const index = new NamespaceIndex();
    index.addMany(records);
    records.slice(0, 4).forEach((r, i) => index.setVector(r.id, r.contentHash, Float32Array.from([0.6, 0.8 * (i % 2 ? 1 : -1), 0, 0])));
    const restored = await restoreSnapshot(captureSnapshot('u=a', index, 'm'), 'm');
    expect(restored?.withoutVector.map((r) => r.id)).toEqual(records.slice(4).map((r) => r.id));
    expect(restored?.index.vectors?.size).toBe(4);
  });

  it('are not written for namespaces under minRecords, nor at all when turned off', async () => {
    const small = await openTestMemory({ embedder: hashingEmbedder(), indexSnapshots: { minRecords: 100, delayMs: 0 } });
    await small.memory.rememberMany(Array.from({ length: 99 }, (_, i) => ({ namespace: ns, content: sentence(i) })));
    await small.memory.recall(ns, 'port');
    await small.memory.close();
    expect(await snapshotRows(small)).toEqual([]);
    const off = await openTestMemory({ embedder: hashingEmbedder(), indexSnapshots: false });
    await off.memory.rememberMany(Array.from({ length: 20 }, (_, i) => ({ namespace: ns, content: sentence(i) })));
    await off.memory.recall(ns, 'port');
    await off.memory.close();
    expect(await snapshotRows(off)).toEqual([]);
  });

  it('keep every field of a record, nulls and fields a later version adds included', async () => {
    const { memory } = await openTestMemory();
    const { record } = await memory.remember({ namespace: ns, content: 'a', tags: ['x'], metadata: { n: 1 }, ttl: 60_000 });
    const { record: other } = await memory.remember({ namespace: ns, content: 'b', layer: 'knowledge' });
    const future = { ...other, tier: 'cold' as const, mergedFrom: ['r1', 'r2'], addedLater: { nested: [1] } };
    expect(fromColumns(toColumns([record, future], nsKey))).toEqual([record, future]);
    expect(fromColumns(toColumns([], nsKey))).toEqual([]);
    await memory.close();
  });

  it('keep the heat of recalls not yet flushed when the record changes meanwhile (regression, FC_SEED=690635380)', async () => {
    const test = await openTestMemory({ embedder: hashingEmbedder(), indexSnapshots: eager });
    const { id } = await test.memory.remember({ namespace: ns, content: 'port charging loose' });
    await test.memory.recall(ns, 'port charging loose'); // one access, flushed a second later
    await test.memory.update(ns, id, { content: 'port charging loose, changed' }); // the row still says 0
    await test.memory.whenEmbedded();
    const live = answer(await test.memory.recall(ns, 'loose charging port', { trackAccess: false }));
    await test.memory.close();
    for (const snapshots of [eager, false] as const) {
      const next = await reopen(test.place, test.clock, snapshots);
      const result = await next.recall(ns, 'loose charging port', { trackAccess: false });
      expect(result.hits[0]!.record.accessCount).toBe(1);
      expect(answer(result)).toEqual(live);
      await next.close();
    }
  });

  it('are not rewritten by a close after recalls only; the next instances still rank with their heat', async () => {
    const test = await openTestMemory({ embedder: hashingEmbedder(), indexSnapshots: eager });
    await test.memory.rememberMany(Array.from({ length: 50 }, (_, i) => ({ namespace: ns, content: sentence(i) })));
    await test.memory.whenEmbedded();
    await test.memory.recall(ns, 'port', { trackAccess: false });
    await test.memory.close();
    const main = async () => (await snapshotRows(test)).find((row) => row.ns === nsKey);
    const written = await main();
    expect(written).toBeDefined();

    // Two servers on the store, one after the other, each recalling (access counted) and closing.
    const recalled: string[] = [];
    for (const query of ['loose charging port', 'refund warranty email']) {
      const reader = await reopen(test.place, test.clock);
      test.clock.advance(60_000);
      recalled.push(...(await reader.recall(ns, query, { k: 3 })).hits.map((hit) => hit.id));
      await reader.close();
      expect(await main()).toEqual(written); // the snapshot itself untouched
    }
    const live = await reopen(test.place, test.clock, false); // rebuilt from the rows
    const expected = answer(await live.recall(ns, 'loose charging port', { trackAccess: false, k: 20 }));
    const counts = Object.fromEntries((await live.recall(ns, 'port', { trackAccess: false, k: 50 })).hits.map((hit) => [hit.id, hit.record.accessCount]));
    await live.close();
    expect(recalled.every((id) => counts[id]! >= 1)).toBe(true);
    const next = await reopen(test.place, test.clock);
    const restored = await next.recall(ns, 'loose charging port', { trackAccess: false, k: 20 });
    expect(answer(restored)).toEqual(expected);
    const restoredCounts = Object.fromEntries((await next.recall(ns, 'port', { trackAccess: false, k: 50 })).hits.map((hit) => [hit.id, hit.record.accessCount]));
    expect(restoredCounts).toEqual(counts);
    await next.close();
  });

  it('refuse bad options with INVALID_INPUT', async () => {
    for (const indexSnapshots of [true, { minRecords: 0 }, { minRecords: 1.5 }, { delayMs: -1 }, { delayMs: Number.NaN }, { everyMs: 5 }, null]) {
      await expectCode(openTestMemory({ indexSnapshots: indexSnapshots as never }), 'INVALID_INPUT');
    }
  });

  it('give the same recall as a rebuild after any mix of writes, forgets and reopens (property)', async () => {
    const seed = fcSeed('index snapshot property');
    // Seeds that once failed run too: heat lost on a change before the flush (690635380),
    // access counted while a snapshot was being written and then forgotten (692838000).
    const seeds = replaying() ? [seed] : [seed, 690635380, 692838000];
    for (const runSeed of seeds) await check(runSeed);
  });
});

/** The property with one seed. */
async function check(seed: number): Promise<void> {
  const op = fc.oneof(
    fc.record({ kind: fc.constant('remember' as const), seed: fc.nat(200) }),
    fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), seed: fc.nat(200) }),
    fc.record({ kind: fc.constant('forget' as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant('recall' as const), seed: fc.nat(200) }),
    fc.record({ kind: fc.constant('reopen' as const) }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
      const clock = fakeClock();
      const test = await openTestMemory({ clock, embedder: hashingEmbedder(), indexSnapshots: eager });
      let memory = test.memory;
      const ids: string[] = [];
      for (const step of ops) {
        if (step.kind === 'remember') {
          const { id, deduplicated } = await memory.remember({ namespace: ns, content: sentence(step.seed) });
          if (!deduplicated) ids.push(id);
        } else if (step.kind === 'update' && ids.length) {
          await memory.update(ns, ids[step.pick % ids.length]!, { content: `${sentence(step.seed)} changed` }).catch((err) => {
            if (err.code !== 'CONFLICT') throw err; // that content is already another record's
          });
        } else if (step.kind === 'forget' && ids.length) {
          await memory.forget(ns, ids.splice(step.pick % ids.length, 1)[0]!);
        } else if (step.kind === 'recall') {
          await memory.recall(ns, sentence(step.seed));
        } else if (step.kind === 'reopen') {
          await memory.close();
          memory = await reopen(test.place, clock);
        }
        clock.advance(1000);
      }
      await memory.whenEmbedded();
      await memory.close();
      const restored = await reopen(test.place, clock);
      const rebuilt = await reopen(test.place, clock, false);
      await restored.whenEmbedded();
      await rebuilt.whenEmbedded();
      for (const query of ['loose charging port', 'refund order late', 'battery screen']) {
        expect(answer(await restored.recall(ns, query, { trackAccess: false, k: 50 }))).toEqual(answer(await rebuilt.recall(ns, query, { trackAccess: false, k: 50 })));
      }
      await restored.close();
      await rebuilt.close();
    }),
    { seed, numRuns: 25 },
  );
}
