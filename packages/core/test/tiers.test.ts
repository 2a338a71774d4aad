import { describe, expect, it } from 'vitest';
import { DEFAULT_LIFECYCLE, type Memory, type Namespace } from '../src/index.ts';
import { expectCode, openTestMemory, type FakeClock } from './helpers.ts';

const ns: Namespace = { userId: 'u1' };
const DAY = 86_400_000;

/** Importance of every record of the namespace, by content. */
async function importances(memory: Memory, namespace: Namespace = ns): Promise<Record<string, number>> {
  const { items } = await memory.list(namespace, { limit: 1000 });
  return Object.fromEntries(items.map((r) => [r.content, r.importance]));
}

/** The same story on a fresh memory: writes, a recall, uses and retier passes at fixed times. */
async function story(passes: number[]): Promise<{ memory: Memory; clock: FakeClock }> {
  const t = await openTestMemory();
  await t.memory.rememberMany([
    { namespace: ns, content: 'Prefers phone calls', importance: 0.9 },
    { namespace: ns, content: 'Charging port is loose', importance: 0.5 },
    { namespace: ns, content: 'Mentioned the weather once', importance: 0.2 },
    { namespace: ns, content: 'Below the floor already', importance: 0.05 },
  ]);
  const start = t.clock.now();
  for (const at of passes) {
    t.clock.set(start + at);
    await t.memory.retier();
  }
  return t;
}

describe('importance follows use', () => {
  it('untouched records decay toward the floor: half the distance per half-life, never below the floor, never above where they were', async () => {
    const { memory } = await story([30 * DAY]);
    const floor = DEFAULT_LIFECYCLE.importanceFloor;
    const got = await importances(memory);
    expect(got['Prefers phone calls']).toBeCloseTo(floor + (0.9 - floor) / 2, 12);
    expect(got['Charging port is loose']).toBeCloseTo(floor + (0.5 - floor) / 2, 12);
    expect(got['Mentioned the weather once']).toBeCloseTo(floor + (0.2 - floor) / 2, 12);
    expect(got['Below the floor already']).toBe(0.05); // at or below the floor: untouched
    const { items } = await memory.list(ns);
    for (const record of items) expect(record.version).toBe(1); // aging is not an edit
  });

  it('is reproducible from the clock: the same clock gives the same values, and two passes equal one', async () => {
    const a = await importances((await story([10 * DAY, 45 * DAY])).memory);
    const b = await importances((await story([10 * DAY, 45 * DAY])).memory);
    expect(a).toEqual(b); // exactly equal
    const once = await importances((await story([45 * DAY])).memory);
    for (const [content, value] of Object.entries(once)) expect(a[content]).toBeCloseTo(value, 12);
    const thrice = await importances((await story([45 * DAY, 45 * DAY, 45 * DAY])).memory);
    expect(thrice).toEqual(once); // a repeated pass at the same time changes nothing
  });

  it('markUsed raises importance by useGain of the distance to 1, bounded by 1; a touch stops the decay until then', async () => {
    const { memory, clock } = await openTestMemory({ lifecycle: { useGain: 0.5, decayHalfLife: '10d' } });
    const a = await memory.remember({ namespace: ns, content: 'Used a lot', importance: 0.5 });
    const b = await memory.remember({ namespace: ns, content: 'Never used', importance: 0.5 });
    const used = await memory.markUsed(ns, [a.id, a.id, 'no-such-id']);
    expect(used.map((r) => [r.id, r.importance])).toEqual([[a.id, 0.75]]); // once per call, unknown ids skipped
    for (let i = 0; i < 60; i++) await memory.markUsed(ns, [a.id]);
    expect((await memory.get(ns, a.id))?.importance).toBe(1);
    clock.advance(10 * DAY);
    await memory.markUsed(ns, [a.id]);
    await memory.retier();
    expect((await memory.get(ns, a.id))?.importance).toBe(1); // touched just now: no decay
    expect((await memory.get(ns, b.id))?.importance).toBeCloseTo(0.1 + 0.4 / 2, 12);
  });

  it('a recall counts as a touch: the recalled record does not decay for the time before it', async () => {
    const { memory, clock } = await openTestMemory();
    await memory.remember({ namespace: ns, content: 'The charging port is loose' });
    await memory.remember({ namespace: ns, content: 'Lives in Lyon' });
    clock.advance(30 * DAY);
    expect((await memory.recall(ns, 'charging port')).hits.map((h) => h.record.content)).toEqual(['The charging port is loose']);
    await memory.retier(); // flushes the recall's access statistics first
    const got = await importances(memory);
    expect(got['The charging port is loose']).toBe(0.5);
    expect(got['Lives in Lyon']).toBeCloseTo(0.3, 12);
  });
});

describe('hot and cold tiers', () => {
  it('records untouched for coldAfter and below the importance floor go cold; recall skips them unless includeCold', async () => {
    const { memory, clock } = await openTestMemory({ lifecycle: { coldAfter: '20d', coldBelowImportance: 0.3 } });
    const low = await memory.remember({ namespace: ns, content: 'Old note about the printer', importance: 0.2 });
    const high = await memory.remember({ namespace: ns, content: 'Important note about the printer', importance: 0.9 });
    clock.advance(19 * DAY);
    expect(await memory.retier()).toMatchObject({ scanned: 2, cooled: 0 }); // not idle long enough yet
    clock.advance(DAY);
    expect(await memory.retier({ namespace: ns })).toMatchObject({ scanned: 2, cooled: 1 });
    expect((await memory.list(ns)).items.map((r) => [r.id, r.tier]).sort()).toEqual([[high.id, 'hot'], [low.id, 'cold']].sort());

    const hot = await memory.recall(ns, 'printer note', { trackAccess: false });
    expect(hot.hits.map((h) => h.id)).toEqual([high.id]);
    const all = await memory.recall(ns, 'printer note', { includeCold: true, trackAccess: false });
    expect(all.hits.map((h) => h.id).sort()).toEqual([high.id, low.id].sort());
    expect((await memory.list(ns)).items.find((r) => r.id === low.id)?.tier).toBe('cold'); // trackAccess: false does not re-warm

    const log = await memory.audit(ns);
    expect(log.filter((e) => e.op === 'retier').map((e) => [e.id, e.actor])).toEqual([[low.id, 'retier']]);
  });

  it('a cold record that is recalled (includeCold) re-warms and comes back in default recalls', async () => {
    const { memory, clock } = await openTestMemory();
    const { id } = await memory.remember({ namespace: ns, content: 'Spare key is under the mat', importance: 0.1 });
    clock.advance(31 * DAY);
    expect((await memory.retier()).cooled).toBe(1);
    expect((await memory.recall(ns, 'spare key')).hits).toEqual([]);
    const found = await memory.recall(ns, 'spare key', { includeCold: true });
    expect(found.hits.map((h) => [h.id, h.record.tier])).toEqual([[id, 'hot']]);
    expect((await memory.recall(ns, 'spare key')).hits.map((h) => h.id)).toEqual([id]);
    clock.advance(DAY);
    expect((await memory.retier()).cooled).toBe(0); // the recall was a touch
  });

  it('reading a cold record with get() re-warms it; list() shows tiers without re-warming', async () => {
    const { memory, clock } = await openTestMemory();
    const { id } = await memory.remember({ namespace: ns, content: 'Old address: 4 Rue Neuve', importance: 0.1 });
    clock.advance(31 * DAY);
    await memory.retier();
    expect((await memory.list(ns)).items[0]?.tier).toBe('cold');
    expect((await memory.get(ns, id, { rewarm: false }))?.tier).toBe('cold'); // a look, not a use
    expect((await memory.list(ns)).items[0]?.tier).toBe('cold');
    await expectCode(memory.get(ns, id, { rewarm: 'no' as never }), 'INVALID_INPUT');
    await expectCode(memory.get(ns, id, { warm: false } as never), 'INVALID_INPUT');
    const read = await memory.get(ns, id);
    expect(read?.tier).toBe('hot');
    expect(read?.lastAccessedAt).toBe(clock.now());
    expect((await memory.recall(ns, 'address')).hits.map((h) => h.id)).toEqual([id]);
    expect((await memory.audit(ns)).filter((e) => e.op === 'retier')).toHaveLength(2); // cooled, warmed
  });

  it('markUsed re-warms a cold record', async () => {
    const { memory, clock } = await openTestMemory();
    const { id } = await memory.remember({ namespace: ns, content: 'Likes jazz', importance: 0.1 });
    clock.advance(31 * DAY);
    await memory.retier();
    const [used] = await memory.markUsed(ns, [id]);
    expect(used?.tier).toBe('hot');
    expect(used?.importance).toBeCloseTo(0.1 + 0.2 * 0.9, 12);
  });

  it('another instance on the same database sees a record go cold (the retier is in the audit log)', async () => {
    const a = await openTestMemory();
    const b = await openTestMemory({ place: a.place, clock: a.clock });
    await a.memory.remember({ namespace: ns, content: 'Owns a red bicycle', importance: 0.1 });
    expect((await b.memory.recall(ns, 'bicycle', { trackAccess: false })).hits).toHaveLength(1); // b's index is loaded
    a.clock.advance(31 * DAY);
    await a.memory.retier();
    expect((await b.memory.recall(ns, 'bicycle', { trackAccess: false })).hits).toHaveLength(0);
  });

  it('a pass covers every record of every namespace, past one transaction\'s batch; with a namespace, only that one', async () => {
    const { memory, clock } = await openTestMemory();
    const other: Namespace = { userId: 'u1', agentId: 'x' };
    const inputs = Array.from({ length: 2300 }, (_, i) => ({ namespace: i % 2 ? ns : other, content: `note number ${i}`, importance: 0.2 }));
    await memory.rememberMany(inputs);
    clock.advance(31 * DAY);
    expect(await memory.retier({ namespace: other })).toEqual({ scanned: 1150, decayed: 1150, cooled: 1150 });
    expect(await memory.count(ns)).toBe(1150);
    expect((await memory.list(ns, { limit: 1 })).items[0]?.tier).toBe('hot');
    expect(await memory.retier()).toEqual({ scanned: 2300, decayed: 1150, cooled: 1150 }); // the other namespace is settled already
    expect(await memory.retier()).toEqual({ scanned: 2300, decayed: 0, cooled: 0 });
  });

  it('bad lifecycle options, retier options and markUsed ids are INVALID_INPUT or NAMESPACE_REQUIRED', async () => {
    await expectCode(openTestMemory({ lifecycle: { coldAfter: 'soon' } }), 'INVALID_INPUT', 'lifecycle.coldAfter');
    await expectCode(openTestMemory({ lifecycle: { useGain: 2 } }), 'INVALID_INPUT', 'lifecycle.useGain');
    await expectCode(openTestMemory({ lifecycle: { colder: 1 } as never }), 'INVALID_INPUT', 'lifecycle.colder');
    const { memory } = await openTestMemory();
    await expectCode(memory.retier({ namespace: { agentId: 'x' } as never }), 'NAMESPACE_REQUIRED');
    await expectCode(memory.retier({ everything: true } as never), 'INVALID_INPUT');
    await expectCode(memory.markUsed(ns, []), 'INVALID_INPUT', 'ids');
    await expectCode(memory.markUsed(ns, ['ok', 'bad id']), 'INVALID_INPUT', 'ids.1');
    await expectCode(memory.markUsed(undefined as never, ['x']), 'NAMESPACE_REQUIRED');
    await expectCode(memory.recall(ns, 'x', { includeCold: 'yes' as never }), 'INVALID_INPUT', 'includeCold');
  });
});
