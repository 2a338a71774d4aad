import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONSOLIDATE_THRESHOLD, type MemoryRecord, type Namespace, type RememberInput } from '../src/index.ts';
import { mergeRecords } from '../src/lifecycle/merge-records.ts';
import { groupNearDuplicates, looseText, tagsOverlap } from '../src/lifecycle/near-duplicates.ts';
import { hashingEmbedder } from '../../../test/kit/hashing-embedder.ts';
import { expectCode, fcSeed, openTestMemory } from './helpers.ts';

const ns: Namespace = { userId: 'u1' };
const HOUR = 3_600_000;

describe('near-duplicate rules', () => {
  it('tags overlap when they share one, or when neither record has any', () => {
    expect(tagsOverlap(['a', 'b'], ['b', 'c'])).toBe(true);
    expect(tagsOverlap(['a'], ['c'])).toBe(false);
    expect(tagsOverlap([], [])).toBe(true);
    expect(tagsOverlap(['a'], [])).toBe(false);
  });

  it('without vectors, text equal after case, punctuation and spacing are folded is a near-duplicate', () => {
    expect(looseText('Prefers phone-calls.')).toBe(looseText('prefers  Phone calls'));
    expect(looseText('电话联系')).toBe(looseText('电话 联系。'));
    expect(looseText('Prefers calls')).not.toBe(looseText('Prefers e-mail'));
  });
});

describe('consolidate', () => {
  it('merges near-duplicates into the newest: highest importance, union of tags, mergedFrom; the rest is forgotten with vectors and audit', async () => {
    const t = await openTestMemory({ embedder: hashingEmbedder() });
    const { memory, clock } = t;
    const old = await memory.remember({ namespace: ns, content: 'The charging port of the phone is loose', tags: ['device'], importance: 0.9, metadata: { v: 1 } });
    clock.advance(HOUR);
    const mid = await memory.remember({ namespace: ns, content: 'the phone charging port is loose', tags: ['device', 'support'], importance: 0.4 });
    clock.advance(HOUR);
    const newest = await memory.remember({ namespace: ns, content: 'Phone: the charging port is loose!', tags: ['device', 'hardware'], importance: 0.6, metadata: { v: 3 } });
    const other = await memory.remember({ namespace: ns, content: 'Prefers phone calls over e-mail', tags: ['device'] });
    await memory.whenEmbedded();
    const ids = async () => (await memory.recall(ns, 'charging port', { trackAccess: false, minRelevance: 0 })).hits.map((h) => h.id); // every candidate: what the index holds
    expect(await ids()).toEqual(expect.arrayContaining([old.id, mid.id, newest.id])); // index loaded, holding all three

    const plan = await memory.consolidate(ns, { dryRun: true });
    expect(plan.dryRun).toBe(true);
    expect(plan.threshold).toBe(DEFAULT_CONSOLIDATE_THRESHOLD);
    expect(plan.groups.map((g) => [g.keepId, g.mergedIds])).toEqual([[newest.id, [old.id, mid.id]]]);
    expect(await memory.count(ns)).toBe(4); // a dry run writes nothing
    const before = await t.stores();

    clock.advance(HOUR);
    const done = await memory.consolidate(ns);
    expect(done.groups.map((g) => [g.keepId, g.mergedIds])).toEqual([[newest.id, [old.id, mid.id]]]);
    const merged = (await memory.get(ns, newest.id))!;
    expect(merged).toEqual(done.groups[0]!.record);
    expect(merged).toMatchObject({
      content: 'Phone: the charging port is loose!',
      importance: 0.9,
      tags: ['device', 'hardware', 'support'],
      mergedFrom: [mid.id, old.id],
      metadata: { v: 3 },
      version: 2,
      updatedAt: clock.now(),
      createdAt: newest.record.createdAt,
    });
    expect(done.groups[0]!.similarity).toBeGreaterThanOrEqual(DEFAULT_CONSOLIDATE_THRESHOLD);
    expect(await memory.get(ns, old.id)).toBeUndefined();
    expect(await memory.get(ns, mid.id)).toBeUndefined();
    expect((await memory.get(ns, other.id))?.version).toBe(1);

    const after = await t.stores();
    const hashes = (rows: unknown[]) => rows.map((v) => (v as { hash: string }).hash).sort();
    expect(hashes(before.vectors!)).toHaveLength(4);
    expect(hashes(after.vectors!)).toEqual([merged.contentHash, other.record.contentHash].sort()); // merged-away vectors gone
    const dump = await t.dump();
    expect(dump).not.toContain('the phone charging port is loose');
    expect(dump).not.toContain('The charging port of the phone is loose');
    const log = (await memory.audit(ns)).slice(-3);
    expect(log.map((e) => [e.op, e.id])).toEqual([['update', newest.id], ['merge', old.id], ['merge', mid.id]]);
    // The loaded index dropped them at once.
    expect((await ids()).sort()).toEqual([newest.id, other.id].sort());
    expect((await memory.consolidate(ns)).groups).toEqual([]); // nothing left to merge
  });

  it('keeps apart what differs in layer or tags, and what is below the threshold', async () => {
    const { memory } = await openTestMemory({ embedder: hashingEmbedder() });
    await memory.rememberMany([
      { namespace: ns, content: 'Likes green tea', tags: ['food'] },
      { namespace: ns, content: 'likes green tea!', tags: ['drink'] }, // no shared tag
      { namespace: ns, content: 'Likes green tea.', layer: 'session' }, // other layer
      { namespace: ns, content: 'Likes green tea a lot' }, // untagged vs tagged
      { namespace: ns, content: 'Likes green tea and coffee', tags: ['food'] },
    ]);
    await memory.whenEmbedded();
    expect((await memory.consolidate(ns, { threshold: 0.99, dryRun: true })).groups).toEqual([]);
    const loose = await memory.consolidate(ns, { threshold: 0.5, dryRun: true });
    expect(loose.groups.map((g) => g.record.content)).toEqual(['Likes green tea and coffee']);
  });

  it('records without a vector (no embedder) merge only when their text is equal after folding', async () => {
    const { memory, clock } = await openTestMemory();
    const a = await memory.remember({ namespace: ns, content: '客户喜欢电话联系', importance: 0.7 });
    clock.advance(1);
    const b = await memory.remember({ namespace: ns, content: '客户喜欢电话联系。' });
    await memory.remember({ namespace: ns, content: '客户喜欢邮件联系' });
    const result = await memory.consolidate(ns);
    expect(result.groups.map((g) => [g.keepId, g.mergedIds, g.similarity])).toEqual([[b.id, [a.id], null]]);
    expect((await memory.get(ns, b.id))?.importance).toBe(0.7);
    expect(await memory.count(ns)).toBe(2);
  });

  it('groups deterministically: the same records in any write order give the same groups (seeded)', async () => {
    const contents = ['port is loose', 'Port is loose.', 'port is loose!!', 'calls after 5pm', 'Calls after 5pm', 'lives in Lyon', 'LIVES IN LYON', 'unique one'];
    const seed = fcSeed('consolidate determinism');
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(contents.map((_, i) => i), { minLength: contents.length }), fc.array(fc.integer({ min: 0, max: 3 }), { minLength: contents.length, maxLength: contents.length }), async (order, hours) => {
        const { memory } = await openTestMemory();
        // Same ids and times whatever the write order: only the order of writes differs.
        const inputs: RememberInput[] = order.map((i) => ({ namespace: ns, id: `r${i}`, content: contents[i]!, createdAt: Date.UTC(2025, 0, 1) + hours[i]! * HOUR }));
        for (const input of inputs) await memory.remember(input);
        const plan = await memory.consolidate(ns, { dryRun: true });
        const again = await memory.consolidate(ns, { dryRun: true });
        expect(again).toEqual(plan);
        expect(plan.groups.map((g) => [...g.mergedIds, g.keepId].sort()).sort()).toEqual([['r0', 'r1', 'r2'], ['r3', 'r4'], ['r5', 'r6']]);
        for (const group of plan.groups) {
          // The newest survives: latest time, then the larger id.
          const members = [...group.mergedIds, group.keepId].map((id) => inputs.find((input) => input.id === id)!);
          const newest = members.reduce((a, b) => ((b.createdAt as number) > (a.createdAt as number) || (b.createdAt === a.createdAt && b.id! > a.id!) ? b : a));
          expect(group.keepId).toBe(newest.id);
        }
        expect(plan.groups).toHaveLength(3);
        await memory.close();
      }),
      { seed, numRuns: 20 },
    );
  });

  it('complete linkage: a chain of pairwise-similar records is not merged into one group', () => {
    const unit = (x: number, y: number) => Float32Array.from([x, y].map((v) => v / Math.hypot(x, y)));
    const record = (id: string, createdAt: number) => ({ id, createdAt, content: id, tags: [], layer: 'long_term' }) as never;
    // a~b (cos 0.95), b~c (0.95), a vs c 0.81: with threshold 0.9, c must not join a's group.
    const angle = Math.acos(0.95);
    const groups = groupNearDuplicates(
      [
        { record: record('a', 1), vector: unit(1, 0) },
        { record: record('b', 2), vector: unit(Math.cos(angle), Math.sin(angle)) },
        { record: record('c', 3), vector: unit(Math.cos(2 * angle), Math.sin(2 * angle)) },
      ],
      0.9,
    );
    expect(groups.map((g) => g.members.map((m) => m.id))).toEqual([['a', 'b']]);
    expect(groups[0]!.similarity).toBeCloseTo(0.95, 5);
  });

  it('a group whose member is edited between planning and writing is skipped, not merged blindly', async () => {
    const { memory } = await openTestMemory();
    const a = await memory.remember({ namespace: ns, content: 'Lives in Lyon' });
    const b = await memory.remember({ namespace: ns, content: 'lives in Lyon.' });
    await memory.remember({ namespace: ns, content: 'Likes jazz' });
    await memory.remember({ namespace: ns, content: 'likes JAZZ' });
    // The update (no content, so no hashing first) opens its transaction in the same tick:
    // it queues behind consolidate's read and ahead of its write.
    const [result] = await Promise.all([memory.consolidate(ns), memory.update(ns, b.id, { importance: 0.9 })]);
    expect(result.skipped.map((g) => [...g.mergedIds, g.keepId].sort())).toEqual([[a.id, b.id].sort()]);
    expect(result.groups).toHaveLength(1); // the jazz pair merged
    expect((await memory.get(ns, b.id))?.version).toBe(2);
    expect(await memory.get(ns, a.id)).toBeDefined();
    expect(await memory.count(ns)).toBe(3);
  });

  it('bad options are INVALID_INPUT and write nothing; a missing namespace is NAMESPACE_REQUIRED', async () => {
    const { memory } = await openTestMemory();
    await memory.remember({ namespace: ns, content: 'a b' });
    await memory.remember({ namespace: ns, content: 'A, b' });
    await expectCode(memory.consolidate(ns, { threshold: 0 }), 'INVALID_INPUT', 'threshold');
    await expectCode(memory.consolidate(ns, { threshold: 1.5 }), 'INVALID_INPUT', 'threshold');
    await expectCode(memory.consolidate(ns, { dryRun: 'yes' as never }), 'INVALID_INPUT', 'dryRun');
    await expectCode(memory.consolidate(ns, { merge: true } as never), 'INVALID_INPUT', 'merge');
    await expectCode(memory.consolidate(undefined as never), 'NAMESPACE_REQUIRED');
    expect(await memory.count(ns)).toBe(2);
  });
});

describe('mergeRecords', () => {
  const base = { namespace: ns, namespaceKey: 'u=u1', source: 'user', layer: 'long_term', metadata: {}, contentHash: 'h', version: 1, accessCount: 0, lastAccessedAt: null, expiresAt: null, tier: 'hot', mergedFrom: [], importance: 0.5, tags: [], key: null, validFrom: null, validUntil: null, closedBy: null, statedUntil: null } as const;
  const record = (id: string, at: number, extra: Partial<MemoryRecord> = {}): MemoryRecord => ({ ...base, id, content: id, createdAt: at, updatedAt: at, tags: [], mergedFrom: [], ...extra });

  it('keeps the newest, the latest expiry (none beats any), summed access, hot if any is hot, earlier provenance too; tags capped at maxTags', () => {
    const { keep, merged, record: result } = mergeRecords(
      [
        record('a', 1, { tags: ['x', 'y'], expiresAt: 50, accessCount: 2, lastAccessedAt: 7, tier: 'cold', mergedFrom: ['z'] }),
        record('c', 3, { tags: ['y', 'w'], expiresAt: 90, accessCount: 1, lastAccessedAt: null, tier: 'cold', version: 4 }),
        record('b', 2, { tags: ['v'], expiresAt: 70, importance: 0.8, tier: 'cold' }),
      ],
      100,
      3,
    );
    expect([keep.id, merged.map((r) => r.id)]).toEqual(['c', ['b', 'a']]);
    expect(result).toMatchObject({ id: 'c', content: 'c', tags: ['y', 'w', 'v'], expiresAt: 90, accessCount: 3, lastAccessedAt: 7, tier: 'cold', mergedFrom: ['b', 'z', 'a'], importance: 0.8, version: 5, updatedAt: 100, createdAt: 3 });
    const unbounded = mergeRecords([record('a', 1, { expiresAt: null }), record('b', 2, { expiresAt: 70, tier: 'cold' })], 100, 32).record;
    expect([unbounded.expiresAt, unbounded.tier]).toEqual([null, 'hot']);
  });
});
