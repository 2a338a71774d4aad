import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZeromemError, type Memory, type MemoryRecord, type Namespace } from '../src/index.ts';
import { fcSeed, openTestMemory, type TestMemory } from './helpers.ts';

/**
 * Two Memory instances on one database (one place, one name): two tabs of one app.
 * They write at the same time; afterwards both must see exactly the acknowledged state.
 */

const NAMESPACES: Namespace[] = [{ userId: 'u1' }, { userId: 'u1', agentId: 'bot' }];

/** Opens two memories on one database, sharing the clock. */
async function openTwo(): Promise<{ a: TestMemory; b: TestMemory }> {
  const a = await openTestMemory();
  const b = await openTestMemory({ place: a.place, name: a.name, clock: a.clock });
  return { a, b };
}

async function listAll(memory: Memory, namespace: Namespace): Promise<MemoryRecord[]> {
  const items: MemoryRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await memory.list(namespace, { limit: 37, order: 'asc', ...(cursor ? { cursor } : {}) });
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return items;
}

type Lane =
  | { kind: 'remember'; via: number; ns: number }
  | { kind: 'rememberMany'; via: number; ns: number; size: number }
  | { kind: 'rememberThenUpdate'; via: [number, number]; ns: number }
  | { kind: 'rememberThenForget'; via: [number, number]; ns: number }
  | { kind: 'updateRacesForget'; ns: number; updateFirst: boolean }
  | { kind: 'sameContentTwice'; ns: number; batch: boolean }
  | { kind: 'ifVersionRace'; ns: number };

const via = fc.integer({ min: 0, max: 1 });
const nsIndex = fc.integer({ min: 0, max: NAMESPACES.length - 1 });
const laneArb: fc.Arbitrary<Lane> = fc.oneof(
  fc.record({ kind: fc.constant('remember' as const), via, ns: nsIndex }),
  fc.record({ kind: fc.constant('rememberMany' as const), via, ns: nsIndex, size: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ kind: fc.constant('rememberThenUpdate' as const), via: fc.tuple(via, via), ns: nsIndex }),
  fc.record({ kind: fc.constant('rememberThenForget' as const), via: fc.tuple(via, via), ns: nsIndex }),
  fc.record({ kind: fc.constant('updateRacesForget' as const), ns: nsIndex, updateFirst: fc.boolean() }),
  fc.record({ kind: fc.constant('sameContentTwice' as const), ns: nsIndex, batch: fc.boolean() }),
  fc.record({ kind: fc.constant('ifVersionRace' as const), ns: nsIndex }),
);

/** What must be true at the end: per namespace, id -> content (present) and ids that must be gone. */
interface Expected {
  present: Map<string, { ns: Namespace; content: string; version?: number }>;
  absent: Array<{ ns: Namespace; id: string }>;
}

async function runLane(lane: Lane, n: number, memories: [Memory, Memory], expected: Expected): Promise<void> {
  const ns = NAMESPACES[lane.ns]!;
  const [a, b] = memories;
  const content = (suffix = '') => `lane ${n}${suffix}: ${lane.kind}`;
  const keep = (id: string, text: string, version?: number) => expected.present.set(`${lane.ns}/${id}`, { ns, content: text, ...(version ? { version } : {}) });
  switch (lane.kind) {
    case 'remember': {
      const { id, deduplicated } = await memories[lane.via]!.remember({ namespace: ns, content: content() });
      expect(deduplicated).toBe(false);
      keep(id, content(), 1);
      break;
    }
    case 'rememberMany': {
      const inputs = Array.from({ length: lane.size }, (_, i) => ({ namespace: ns, content: content(` #${i}`) }));
      const { results } = await memories[lane.via]!.rememberMany(inputs);
      expect(results.map((r) => r.deduplicated)).toEqual(inputs.map(() => false));
      results.forEach((r, i) => keep(r.id, inputs[i]!.content, 1));
      break;
    }
    case 'rememberThenUpdate': {
      const { id } = await memories[lane.via[0]]!.remember({ namespace: ns, content: content() });
      const updated = await memories[lane.via[1]]!.update(ns, id, { content: content(' (updated)'), importance: 0.9 });
      expect(updated.version).toBe(2);
      keep(id, content(' (updated)'), 2);
      break;
    }
    case 'rememberThenForget': {
      const { id } = await memories[lane.via[0]]!.remember({ namespace: ns, content: content() });
      expect(await memories[lane.via[1]]!.forget(ns, id)).toBe(true);
      expected.absent.push({ ns, id });
      break;
    }
    case 'updateRacesForget': {
      const { id } = await a.remember({ namespace: ns, content: content() });
      const updating = () =>
        a.update(ns, id, { content: content(' (raced)') }).then(
          () => 'updated',
          (err: ZeromemError) => err.code,
        );
      let updateOutcome: string;
      let forgotten: boolean;
      if (lane.updateFirst) {
        updateOutcome = await updating();
        expect(updateOutcome).toBe('updated');
        forgotten = await b.forget(ns, id);
      } else [updateOutcome, forgotten] = await Promise.all([updating(), b.forget(ns, id)]);
      // Either the update ran first (then the forget removed the updated record) or the forget did.
      expect(['updated', 'NOT_FOUND']).toContain(updateOutcome);
      expect(forgotten).toBe(true);
      expected.absent.push({ ns, id });
      break;
    }
    case 'sameContentTwice': {
      const input = { namespace: ns, content: content() };
      const [first, second] = lane.batch
        ? await Promise.all([a.rememberMany([input]).then((r) => r.results[0]!), b.rememberMany([input]).then((r) => r.results[0]!)])
        : await Promise.all([a.remember(input), b.remember(input)]);
      // Dedupe is transactional: one record, one creator, the same id for both.
      expect(first.id).toBe(second.id);
      expect([first.deduplicated, second.deduplicated].sort()).toEqual([false, true]);
      keep(first.id, input.content, 1);
      break;
    }
    case 'ifVersionRace': {
      const { id } = await a.remember({ namespace: ns, content: content() });
      const outcomes = await Promise.all(
        [a, b].map((m, i) =>
          m.update(ns, id, { content: content(` (by ${i})`) }, { ifVersion: 1 }).then(
            (record) => ({ ok: true as const, record }),
            (err: ZeromemError) => ({ ok: false as const, err }),
          ),
        ),
      );
      const wins = outcomes.filter((o) => o.ok);
      const losses = outcomes.filter((o) => !o.ok);
      expect(wins).toHaveLength(1);
      expect(losses).toHaveLength(1);
      expect(losses[0]!.err.code).toBe('CONFLICT');
      expect(losses[0]!.err.details.currentVersion).toBe(2);
      keep(id, wins[0]!.record.content, 2);
      break;
    }
  }
}

async function expectState(memories: [Memory, Memory], expected: Expected): Promise<void> {
  for (const memory of memories) {
    for (const [key, want] of expected.present) {
      const id = key.slice(key.indexOf('/') + 1);
      const record = await memory.get(want.ns, id);
      expect(record, `${key} must be present`).toBeDefined();
      expect(record!.content).toBe(want.content);
      if (want.version !== undefined) expect(record!.version).toBe(want.version);
    }
    for (const { ns, id } of expected.absent) expect(await memory.get(ns, id)).toBeUndefined();
    for (const [index, ns] of NAMESPACES.entries()) {
      const wanted = [...expected.present.keys()].filter((key) => key.startsWith(`${index}/`)).map((key) => key.slice(key.indexOf('/') + 1));
      const listed = await listAll(memory, ns);
      expect(listed.map((r) => r.id).sort()).toEqual(wanted.sort());
      expect(await memory.count(ns)).toBe(wanted.length);
      expect((await memory.stats(ns)).count).toBe(wanted.length);
      // One audit entry per acknowledged change, in one log both instances share.
      const log = await memory.audit(ns);
      expect(new Set(log.map((e) => e.seq)).size).toBe(log.length);
    }
  }
}

describe('two instances on one database (like two tabs)', () => {
  it('concurrent writes from both: every acknowledged write is visible from both, every forgotten record is gone', async () => {
    const seed = fcSeed('concurrency');
    await fc.assert(
      fc.asyncProperty(fc.array(laneArb, { minLength: 60, maxLength: 90 }), async (lanes) => {
        const { a, b } = await openTwo();
        const memories: [Memory, Memory] = [a.memory, b.memory];
        try {
          const expected: Expected = { present: new Map(), absent: [] };
          await Promise.all(lanes.map((lane, n) => runLane(lane, n, memories, expected)));
          await expectState(memories, expected);
          // Audit: every record that exists was remembered once; nothing else was.
          for (const [index, ns] of NAMESPACES.entries()) {
            const remembered = (await a.memory.audit(ns)).filter((e) => e.op === 'remember').map((e) => e.id);
            const present = [...expected.present.keys()].filter((key) => key.startsWith(`${index}/`)).map((key) => key.slice(key.indexOf('/') + 1));
            const gone = expected.absent.filter((x) => x.ns === ns).map((x) => x.id);
            expect(remembered.sort()).toEqual([...present, ...gone].sort());
          }
        } finally {
          await a.memory.close();
          await b.memory.close();
        }
      }),
      { seed, numRuns: 4 },
    );
  });

  it('the same content remembered many times from both instances at once yields exactly one record', async () => {
    const { a, b } = await openTwo();
    const ns = NAMESPACES[0]!;
    const attempts = Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).memory.remember({ namespace: ns, content: 'Charging port is loose', importance: (i % 10) / 10 }));
    const results = await Promise.all(attempts);
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(results.filter((r) => !r.deduplicated)).toHaveLength(1);
    for (const memory of [a.memory, b.memory]) {
      expect(await memory.count(ns)).toBe(1);
      const [record] = (await memory.list(ns)).items;
      expect(record!.importance).toBe(0.9); // the highest importance wins, whatever the order
    }
    const stores = await a.stores();
    expect(stores.records).toHaveLength(1);
    expect((await a.memory.audit(ns)).filter((e) => e.op === 'remember')).toHaveLength(1);
    await a.memory.close();
    await b.memory.close();
  });

  it('a caller id claimed by both instances at once with different content: one wins, the other gets CONFLICT', async () => {
    const { a, b } = await openTwo();
    const ns = NAMESPACES[0]!;
    const outcomes = await Promise.all(
      [a, b].map((t, i) =>
        t.memory.remember({ namespace: ns, id: 'order-1', content: `claimed by ${i}` }).then(
          (r) => r.record.content,
          (err: ZeromemError) => err.code,
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'CONFLICT')).toHaveLength(1);
    const winner = outcomes.find((o) => o !== 'CONFLICT');
    for (const t of [a, b]) expect((await t.memory.get(ns, 'order-1'))?.content).toBe(winner);
    await a.memory.close();
    await b.memory.close();
  });

  it('forgetUser from one instance while the other writes: nothing of the user outlives an acknowledged forget', async () => {
    const { a, b } = await openTwo();
    const ns = { userId: 'leaving' };
    await a.memory.rememberMany(Array.from({ length: 50 }, (_, i) => ({ namespace: ns, content: `before ${i}` })));
    const writes = Array.from({ length: 30 }, (_, i) => b.memory.remember({ namespace: ns, content: `during ${i}` }).then((r) => r.id));
    const [forgotten, ...ids] = await Promise.all([a.memory.forgetUser('leaving'), ...writes]);
    // Writes that committed before the forget were deleted by it; later ones remain.
    const remaining = await b.memory.count(ns);
    expect(forgotten + remaining).toBe(80);
    const survivors = new Set((await listAll(a.memory, ns)).map((r) => r.id));
    for (const id of survivors) expect(ids).toContain(id);
    expect((await a.stores()).records!.filter((r) => (r as { userId: string }).userId === 'leaving')).toHaveLength(remaining);
    await a.memory.close();
    await b.memory.close();
  });
});
