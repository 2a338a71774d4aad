import { describe, expect, it } from 'vitest';
import { ZeromemError } from '../src/index.ts';
import { openTestMemory } from './helpers.ts';

const ns = { userId: 'u1' };
const DAY = 86_400_000;

describe('keyed facts', () => {
  it('a new keyed fact closes the live version of its key, in one audit entry', async () => {
    const { memory, clock } = await openTestMemory();
    const phone = await memory.remember({ namespace: ns, content: 'Prefers phone calls', key: 'contact.channel' });
    expect(phone.record).toMatchObject({ key: 'contact.channel', validFrom: clock.now(), validUntil: null, closedBy: null });
    expect(phone.closed).toEqual([]);
    clock.advance(2 * DAY);
    const mail = await memory.remember({ namespace: ns, content: 'Prefers e-mail', key: 'contact.channel' });
    expect(mail.closed).toEqual([phone.id]);
    expect(mail.record).toMatchObject({ validFrom: clock.now(), validUntil: null });
    expect(await memory.get(ns, phone.id)).toMatchObject({ validUntil: clock.now(), closedBy: mail.id, version: 1 });
    const audit = await memory.audit(ns);
    expect(audit.map((entry) => [entry.op, entry.id])).toEqual([
      ['remember', phone.id],
      ['remember', mail.id],
    ]);
  });

  it('reads return the facts valid now; asOf and includeClosed reach the others', async () => {
    const { memory, clock } = await openTestMemory();
    const start = clock.now();
    await memory.remember({ namespace: ns, content: 'Lives in Lyon', key: 'home.city' });
    const other = await memory.remember({ namespace: ns, content: 'Likes jazz records' });
    clock.advance(DAY);
    const paris = await memory.remember({ namespace: ns, content: 'Lives in Paris', key: 'home.city' });
    const contents = async (options = {}) => (await memory.list(ns, options)).items.map((r) => r.content).sort();
    expect(await contents()).toEqual(['Likes jazz records', 'Lives in Paris']);
    expect(await contents({ asOf: start })).toEqual(['Likes jazz records', 'Lives in Lyon']);
    expect(await contents({ includeClosed: true })).toEqual(['Likes jazz records', 'Lives in Lyon', 'Lives in Paris']);
    expect(await memory.count(ns)).toBe(2);
    expect(await memory.count(ns, { includeClosed: true })).toBe(3);
    expect(await memory.count(ns, { key: 'home.city', asOf: start })).toBe(1);
    const hits = (await memory.recall(ns, 'where does the user live')).hits.map((h) => h.record.content);
    expect(hits).toContain('Lives in Paris');
    expect(hits).not.toContain('Lives in Lyon');
    const then = (await memory.recall(ns, 'where does the user live', { asOf: start })).hits.map((h) => h.record.content);
    expect(then).toContain('Lives in Lyon');
    expect(then).not.toContain('Lives in Paris');
    expect(other.record.key).toBeNull();
    expect(paris.record.validUntil).toBeNull();
  });

  it('a backdated write becomes a closed version and closes nothing later than itself', async () => {
    const { memory, clock } = await openTestMemory();
    const t0 = clock.now();
    const now = await memory.remember({ namespace: ns, content: 'Plan: 20 GB', key: 'phone.plan', validFrom: t0 + 10 * DAY });
    const old = await memory.remember({ namespace: ns, content: 'Plan: 5 GB', key: 'phone.plan', validFrom: t0 + 2 * DAY });
    expect(old.closed).toEqual([]);
    expect(old.record).toMatchObject({ validFrom: t0 + 2 * DAY, validUntil: t0 + 10 * DAY, closedBy: now.id });
    expect(await memory.get(ns, now.id)).toMatchObject({ validUntil: null, closedBy: null });
    const learnedLate = await memory.remember({ namespace: ns, content: 'Plan: 1 GB', key: 'phone.plan', validFrom: t0, validUntil: t0 + DAY });
    expect(learnedLate.record).toMatchObject({ validUntil: t0 + DAY, closedBy: null });
  });

  it('profile() lists the current keyed facts by key', async () => {
    const { memory, clock } = await openTestMemory();
    const t0 = clock.now();
    await memory.remember({ namespace: ns, content: 'Prefers phone calls', key: 'contact.channel' });
    await memory.remember({ namespace: ns, content: 'Lives in Lyon', key: 'home.city' });
    await memory.remember({ namespace: ns, content: 'Likes jazz' });
    clock.advance(DAY);
    const mail = await memory.remember({ namespace: ns, content: 'Prefers e-mail', key: 'contact.channel' });
    const profile = await memory.profile(ns);
    expect(profile.map((entry) => [entry.key, entry.content])).toEqual([
      ['contact.channel', 'Prefers e-mail'],
      ['home.city', 'Lives in Lyon'],
    ]);
    expect(profile[0]).toEqual({ key: 'contact.channel', content: 'Prefers e-mail', id: mail.id, validFrom: t0 + DAY });
    expect((await memory.profile(ns, { asOf: t0 }))[0]!.content).toBe('Prefers phone calls');
  });

  it('forgetWhere({ key }) forgets every version of the key', async () => {
    const { memory, clock } = await openTestMemory();
    const a = await memory.remember({ namespace: ns, content: 'Prefers phone calls', key: 'contact.channel' });
    clock.advance(DAY);
    const b = await memory.remember({ namespace: ns, content: 'Prefers e-mail', key: 'contact.channel' });
    await memory.remember({ namespace: ns, content: 'Lives in Lyon', key: 'home.city' });
    expect((await memory.forgetWhere(ns, { key: 'contact.channel' })).sort()).toEqual([a.id, b.id].sort());
    expect(await memory.count(ns, { includeClosed: true })).toBe(1);
  });

  it('refuses bad keys and validity without a key, writing nothing', async () => {
    const { memory } = await openTestMemory();
    for (const input of [
      { namespace: ns, content: 'x', key: 'Contact.Channel' },
      { namespace: ns, content: 'x', key: 'contact..channel' },
      { namespace: ns, content: 'x', key: 'a'.repeat(129) },
      { namespace: ns, content: 'x', key: 7 },
      { namespace: ns, content: 'x', validFrom: 0 },
      { namespace: ns, content: 'x', key: 'a', validFrom: 10, validUntil: 10 },
    ]) {
      const error = await memory.remember(input as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ZeromemError);
      expect((error as ZeromemError).code).toBe('INVALID_INPUT');
    }
    expect(await memory.count(ns, { includeClosed: true })).toBe(0);
  });
});
