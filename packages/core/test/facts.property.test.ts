import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Memory } from '../src/index.ts';
import { fcSeed, openTestMemory, type FakeClock } from './helpers.ts';

/**
 * Model-based property of keyed facts: random keyed writes (now, backdated, future-dated,
 * with a stated end), forgets of a key or of one version, and clock moves over a few keys,
 * checked against a model that answers "what held at t" the plain way: the version that
 * started last at or before t (ties: the greater id), unless its stated end is past.
 */

const DAY = 86_400_000;
const KEYS = ['contact.channel', 'home.city', 'phone.plan'];
const CONTENTS = ['phone', 'e-mail', 'Lyon', 'Paris', '5 GB', '20 GB'];
const ns = { userId: 'u1' };

type Op =
  | { op: 'write'; key: number; content: number; from: number | null; lasts: number | null }
  | { op: 'forgetKey'; key: number }
  | { op: 'forgetVersion'; pick: number }
  | { op: 'advance'; days: number }
  | { op: 'check'; at: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('write' as const),
      key: fc.nat(KEYS.length - 1),
      content: fc.nat(CONTENTS.length - 1),
      // Days from now: null is "now" (the default), negative is backdated.
      from: fc.option(fc.integer({ min: -6, max: 1 }), { nil: null }),
      lasts: fc.option(fc.integer({ min: 1, max: 4 }), { freq: 4, nil: null }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('forgetKey' as const), key: fc.nat(KEYS.length - 1) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('forgetVersion' as const), pick: fc.nat(50) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('advance' as const), days: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('check' as const), at: fc.integer({ min: -8, max: 2 }) }) },
);

interface Version {
  id: string;
  key: string;
  content: string;
  validFrom: number;
  statedUntil: number | null;
}

/** The plain model: a list of versions. */
class Model {
  versions: Version[] = [];

  after(a: Version, b: Version): boolean {
    return a.validFrom > b.validFrom || (a.validFrom === b.validFrom && a.id > b.id);
  }

  /** The version of `key` that held at `t`, if any. */
  heldAt(key: string, t: number): Version | undefined {
    let latest: Version | undefined;
    for (const v of this.versions) if (v.key === key && v.validFrom <= t && (!latest || this.after(v, latest))) latest = v;
    return latest && (latest.statedUntil === null || t < latest.statedUntil) ? latest : undefined;
  }

  /** The version right after `v` in (validFrom, id) order. */
  next(v: Version): Version | undefined {
    let best: Version | undefined;
    for (const w of this.versions) if (w.key === v.key && this.after(w, v) && (!best || this.after(best, w))) best = w;
    return best;
  }

  current(key: string): Version | undefined {
    let latest: Version | undefined;
    for (const v of this.versions) if (v.key === key && (!latest || this.after(v, latest))) latest = v;
    return latest;
  }
}

async function run(memory: Memory, clock: FakeClock, ops: Op[]): Promise<void> {
  const model = new Model();
  for (const step of ops) {
    const now = clock.now();
    if (step.op === 'write') {
      const key = KEYS[step.key]!;
      const content = CONTENTS[step.content]!;
      const validFrom = step.from === null ? now : now + step.from * DAY;
      const statedUntil = step.lasts === null ? null : validFrom + step.lasts * DAY;
      const current = model.current(key);
      const result = await memory.remember({
        namespace: ns,
        content,
        key,
        ...(step.from === null ? {} : { validFrom }),
        ...(statedUntil === null ? {} : { validUntil: statedUntil }),
      });
      const repeats = current !== undefined && current.content === content && current.statedUntil === null && statedUntil === null && validFrom >= current.validFrom;
      expect(result.deduplicated).toBe(repeats);
      if (repeats) {
        expect(result.id).toBe(current.id);
        continue;
      }
      const version = { id: result.id, key, content, validFrom, statedUntil };
      const previous = model.versions.filter((v) => v.key === key);
      model.versions.push(version);
      // What it closed: the versions whose next one it now is, and which held up to it.
      const closed = previous.filter((v) => model.next(v) === version && (v.statedUntil === null || validFrom <= v.statedUntil)).map((v) => v.id);
      expect([...result.closed].sort()).toEqual(closed.sort());
    } else if (step.op === 'forgetKey') {
      const key = KEYS[step.key]!;
      const gone = model.versions.filter((v) => v.key === key).map((v) => v.id);
      expect((await memory.forgetWhere(ns, { key })).sort()).toEqual(gone.sort());
      model.versions = model.versions.filter((v) => v.key !== key);
    } else if (step.op === 'forgetVersion') {
      if (!model.versions.length) continue;
      const victim = model.versions[step.pick % model.versions.length]!;
      expect(await memory.forget(ns, victim.id)).toBe(true);
      model.versions = model.versions.filter((v) => v !== victim);
    } else if (step.op === 'advance') {
      clock.advance(step.days * DAY);
    } else {
      const at = now + step.at * DAY;
      const expected = KEYS.map((key) => model.heldAt(key, at)).filter((v): v is Version => v !== undefined);
      const profile = await memory.profile(ns, { asOf: at });
      expect(profile).toEqual(expected.map((v) => ({ key: v.key, content: v.content, id: v.id, validFrom: v.validFrom })));
      const listed = (await memory.list(ns, { asOf: at, limit: 1000 })).items.map((r) => r.id).sort();
      expect(listed).toEqual(expected.map((v) => v.id).sort());
      expect(await memory.count(ns, { asOf: at })).toBe(expected.length);
      expect(await memory.count(ns, { includeClosed: true })).toBe(model.versions.length);
      for (const key of KEYS) {
        const held = model.heldAt(key, at);
        // minRelevance 0: this checks which version a key's filter and asOf reach, not relevance
        // (every content joined matches a store of one repeated word by a small share: seed 222897467).
        const hits = (await memory.recall(ns, CONTENTS.join(' '), { asOf: at, filters: { key }, trackAccess: false, minRelevance: 0 })).hits.map((h) => h.id);
        expect(hits).toEqual(held ? [held.id] : []);
      }
      // Every stored interval is the derivation of the versions stored.
      for (const v of model.versions) {
        const next = model.next(v);
        const endsByNext = next !== undefined && (v.statedUntil === null || next.validFrom <= v.statedUntil);
        const record = await memory.get(ns, v.id, { rewarm: false });
        expect(record).toMatchObject({ key: v.key, validFrom: v.validFrom, statedUntil: v.statedUntil, validUntil: endsByNext ? next.validFrom : v.statedUntil, closedBy: endsByNext ? next.id : null });
      }
    }
  }
}

describe('keyed facts (seeded, model-based)', () => {
  it('writes, backdated writes, forgets and asOf reads agree with the plain model', async () => {
    const seed = fcSeed('keyed facts');
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40 }), async (ops) => {
        const { memory, clock } = await openTestMemory();
        try {
          await run(memory, clock, [...ops, { op: 'check', at: 0 }]);
        } finally {
          await memory.close();
        }
      }),
      { seed, numRuns: 60 },
    );
  });
});
