import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZeromemError, type MemoryRecord, type Namespace, type RememberInput } from '../src/index.ts';
import { replicaOf, replicatedState } from '../src/internal.ts';
import { expectCode, fakeClock, fcSeed, openTestMemory } from './helpers.ts';

/** The latest instant a JS Date can hold: the bound every stored time keeps. */
const MAX_TIME = 8.64e15;
const ns = { userId: 'u1' };

describe('a computed expiry stays within the times every other path accepts', () => {
  it("a ttl ending after the last Date is INVALID_INPUT in remember, rememberMany, update and session (regression: ttl '99999999999999w' stored expiresAt 6.048e22)", async () => {
    const t = await openTestMemory();
    const { record } = await t.memory.remember({ namespace: ns, id: 'r1', content: 'kept as it is' });
    for (const ttl of ['99999999999999w', 1e300, MAX_TIME]) {
      await expectCode(t.memory.remember({ namespace: ns, content: 'huge ttl', ttl }), 'INVALID_INPUT', 'ttl');
      await expectCode(t.memory.rememberMany([{ namespace: ns, content: 'huge ttl', ttl }]), 'INVALID_INPUT');
      await expectCode(t.memory.update(ns, 'r1', { ttl }), 'INVALID_INPUT', 'ttl');
      await expectCode(() => t.memory.session({ namespace: ns, ttl: ttl as never }), 'INVALID_INPUT', 'ttl');
    }
    // Anchored on a late createdAt, even a small ttl can run past the bound.
    await expectCode(t.memory.remember({ namespace: ns, content: 'late', createdAt: MAX_TIME - 1000, ttl: '1d' }), 'INVALID_INPUT', 'ttl');
    expect(await t.memory.list(ns)).toMatchObject({ items: [record] });
    expect(await t.memory.audit(ns)).toHaveLength(1);
  });

  it('a fractional ttl gives a whole-millisecond expiry, at least 1 ms ahead (regression: ttl 0.000122 stored a fractional expiresAt that import refused)', async () => {
    const clock = fakeClock();
    const t = await openTestMemory({ clock });
    const tiny = await t.memory.remember({ namespace: ns, content: 'tiny', ttl: 0.000122 });
    const fraction = await t.memory.remember({ namespace: ns, content: 'fraction', ttl: 1.6 });
    const string = await t.memory.remember({ namespace: ns, content: 'string', ttl: '0.0001ms' });
    expect([tiny, fraction, string].map((r) => r.record.expiresAt! - clock.now())).toEqual([1, 2, 1]);
    const other = await openTestMemory({ clock });
    expect(await other.memory.importJsonl(await t.memory.exportJsonl({ namespace: ns }))).toMatchObject({ imported: 3 });
  });

  it('a ttl that ends exactly at the last Date is accepted and round-trips', async () => {
    const clock = fakeClock();
    const t = await openTestMemory({ clock });
    const { record } = await t.memory.remember({ namespace: ns, content: 'until the end of time', ttl: MAX_TIME - clock.now() });
    expect(record.expiresAt).toBe(MAX_TIME);
    const other = await openTestMemory({ clock });
    expect(await other.memory.importJsonl(await t.memory.exportJsonl({ namespace: ns }))).toMatchObject({ imported: 1 });
  });
});

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 0, 1);
const UNITS = ['ms', 's', 'm', 'h', 'd', 'w'] as const;

/** Times as remember takes them: epoch numbers (fractions too), Dates, ISO strings; near now and near the bound. */
const epoch = fc.oneof(
  fc.integer({ min: NOW - 400 * DAY, max: NOW + 400 * DAY }),
  fc.integer({ min: MAX_TIME - 400 * DAY, max: MAX_TIME + 10 }),
  fc.double({ min: 0, max: MAX_TIME * 2, noNaN: true }),
);
const time = fc.oneof(epoch, epoch.map((ms) => new Date(ms)), epoch.filter((ms) => ms <= MAX_TIME).map((ms) => new Date(ms).toISOString()));
/** Durations: ms numbers up to 1e300, and unit strings from tiny to absurd, combined ("1h30m"). */
const duration = fc.oneof(
  fc.double({ min: 0, max: 1e300, noNaN: true }),
  fc.integer({ min: 1, max: 800 * DAY }),
  fc.array(fc.tuple(fc.oneof(fc.nat(1000), fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.double({ min: 0, max: 1e6, noNaN: true })), fc.constantFrom(...UNITS)), { minLength: 1, maxLength: 3 })
    .map((parts) => parts.map(([n, unit]) => `${n}${unit}`).join('')),
);
/** No expiry, an absolute one, a relative one, or (rarely, refused) both. */
const expiry = fc.oneof(
  fc.constant({}),
  fc.record({ expiresAt: time }),
  fc.record({ ttl: duration }),
  { weight: 1, arbitrary: fc.record({ expiresAt: time, ttl: duration }) },
);
const rememberArb = fc
  .tuple(
    fc.record(
      {
        content: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
        source: fc.constantFrom('user' as const, 'assistant' as const, 'system' as const, 'tool' as const, 'memory' as const),
        layer: fc.constantFrom('session' as const, 'long_term' as const, 'knowledge' as const),
        tags: fc.uniqueArray(fc.string({ minLength: 1, maxLength: 8 }), { maxLength: 4 }),
        metadata: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
        importance: fc.double({ min: 0, max: 1, noNaN: true }),
        createdAt: time,
      },
      { requiredKeys: ['content'] },
    ),
    expiry,
  )
  .map(([fields, expiresWhen]) => ({ ...fields, ...expiresWhen }));

describe('what remember accepts, export/import and replication accept', () => {
  it('anything remember accepts comes back whole through exportJsonl -> importJsonl and through replication (seeded)', async () => {
    const seed = fcSeed('remember -> export/import and replication');
    const clock = fakeClock(NOW);
    const [origin, restored, replica] = await Promise.all([openTestMemory({ clock }), openTestMemory({ clock }), openTestMemory({ clock })]);
    let run = 0;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(rememberArb, async (fields) => {
        const namespace: Namespace = { userId: `p${run++}` };
        let record;
        try {
          ({ record } = await origin.memory.remember({ namespace, ...fields } as RememberInput));
        } catch (err) {
          expect(err, String(err)).toBeInstanceOf(ZeromemError);
          expect((err as ZeromemError).code).toBe('INVALID_INPUT');
          return;
        }
        accepted++;
        const imported = await restored.memory.importJsonl(await origin.memory.exportJsonl({ namespace }));
        expect(imported).toMatchObject({ imported: 1, failures: [] });
        expect(await restored.memory.get(namespace, record.id, { rewarm: false })).toEqual(record);
        const applied = await replicaOf(replica.memory).apply(namespace, [{ put: replicatedState(record) }], { after: 0 });
        expect(applied.rejected).toEqual([]);
        expect(applied.written.map((r: MemoryRecord) => replicatedState(r))).toEqual([replicatedState(record)]);
      }),
      { seed, numRuns: 200 },
    );
    // The arbitraries must reach the accepting side too, or the property says nothing.
    console.log(`accepted ${accepted} of 200`);
    expect(accepted).toBeGreaterThan(10);
  });
});
