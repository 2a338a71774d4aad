import { afterEach, expect, it } from 'vitest';
import type { Memory, Namespace } from '@zeromem/core';
import { cleanup, records, twoSyncedDevices, until } from './helpers.ts';

const SHARED = { userId: 'alice', scope: 'facts' };
const DAY = 86_400_000;

afterEach(cleanup);

async function twoReplicas() {
  const clock = { t: Date.UTC(2026, 2, 1), now: () => clock.t };
  const { laptop: a, phone: b, a: shareA, b: shareB } = await twoSyncedDevices(SHARED, { clock });
  return { clock, a, b, shareA, shareB };
}

/** Every version with its derived interval, as one replica sees them. */
async function intervals(memory: Memory, namespace: Namespace) {
  const { items } = await memory.list(namespace, { includeClosed: true, limit: 1000, order: 'asc' });
  return items.map(({ id, key, content, validFrom, validUntil, closedBy, statedUntil }) => ({ id, key, content, validFrom, validUntil, closedBy, statedUntil })).sort((x, y) => (x.id < y.id ? -1 : 1));
}

it('two replicas writing one key while apart agree on its current fact and every interval after sync', async () => {
  const { clock, a, b, shareA, shareB } = await twoReplicas();
  const phone = await a.memory.remember({ namespace: SHARED, content: 'Prefers phone calls', key: 'contact.channel' });
  await until(async () => (await b.memory.get(SHARED, phone.id)) !== undefined, 'B to get the first fact');
  shareA.disconnect();
  clock.t += DAY;
  // A learns of e-mail on day 2; B, still online, learns of SMS on day 3 and, late, that a fax held on day 1.
  const mail = await a.memory.remember({ namespace: SHARED, content: 'Prefers e-mail', key: 'contact.channel' });
  clock.t += DAY;
  const sms = await b.memory.remember({ namespace: SHARED, content: 'Prefers SMS', key: 'contact.channel' });
  const fax = await b.memory.remember({ namespace: SHARED, content: 'Prefers fax', key: 'contact.channel', validFrom: clock.t - 2 * DAY + 1000, validUntil: clock.t - 2 * DAY + 2000 });
  // Two writes of the same instant: the greater id is current on both sides.
  const tieAt = clock.t + DAY;
  const tieA = await a.memory.remember({ namespace: SHARED, content: 'Lives in Lyon', key: 'home.city', validFrom: tieAt });
  const tieB = await b.memory.remember({ namespace: SHARED, content: 'Lives in Paris', key: 'home.city', validFrom: tieAt });
  await shareB.flush();
  shareA.connect();
  await until(async () => (await intervals(a.memory, SHARED)).length === 6 && (await intervals(b.memory, SHARED)).length === 6, 'both replicas to hold all six versions');
  await Promise.all([shareA.flush(), shareB.flush()]);

  expect(await intervals(a.memory, SHARED)).toEqual(await intervals(b.memory, SHARED));
  expect(await records(a.memory, SHARED)).toEqual(await records(b.memory, SHARED));
  const profile = await a.memory.profile(SHARED, { asOf: tieAt });
  expect(profile).toEqual(await b.memory.profile(SHARED, { asOf: tieAt }));
  const winner = tieA.id > tieB.id ? tieA : tieB;
  expect(profile.map((entry) => [entry.key, entry.id])).toEqual([
    ['contact.channel', sms.id],
    ['home.city', winner.id],
  ]);
  const byId = new Map((await intervals(a.memory, SHARED)).map((v) => [v.id, v]));
  expect(byId.get(phone.id)).toMatchObject({ closedBy: fax.id });
  expect(byId.get(fax.id)).toMatchObject({ validUntil: fax.record.statedUntil, closedBy: null });
  expect(byId.get(mail.id)).toMatchObject({ validUntil: sms.record.validFrom, closedBy: sms.id });
  expect(a.errors.concat(b.errors)).toEqual([]);
});
