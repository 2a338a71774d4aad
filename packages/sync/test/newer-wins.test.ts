import { afterEach, expect, it } from 'vitest';
import { cleanup, records, twoSyncedDevices, until } from './helpers.ts';

const SHARED = { userId: 'alice', scope: 'newer-wins' };

afterEach(cleanup);

/** Two replicas on one controlled clock, both synced, holding record X. */
async function twoReplicas() {
  const clock = { t: Date.UTC(2026, 5, 1), now: () => clock.t };
  const { laptop: a, phone: b, a: shareA, b: shareB } = await twoSyncedDevices(SHARED, { clock });
  const { id } = await a.memory.remember({ namespace: SHARED, content: 'X original' });
  await until(async () => (await b.memory.get(SHARED, id)) !== undefined, 'B to get X');
  return { clock, a, b, shareA, shareB, id };
}

it('an offline edit older than the document’s state loses when its replica reconnects', async () => {
  const { clock, a, b, shareA, shareB, id } = await twoReplicas();
  shareA.disconnect();
  clock.t += 1000;
  await a.memory.update(SHARED, id, { content: 'X edited offline by A at t1' });
  clock.t += 1000;
  await b.memory.update(SHARED, id, { content: 'X edited online by B at t2' });
  await shareB.flush();
  shareA.connect();
  await until(async () => (await a.memory.get(SHARED, id))?.content === 'X edited online by B at t2', 'A to take B’s newer edit');
  await Promise.all([shareA.flush(), shareB.flush()]);
  expect((await b.memory.get(SHARED, id))?.content).toBe('X edited online by B at t2');
  expect(await records(a.memory, SHARED)).toEqual(await records(b.memory, SHARED));
  expect(a.errors.concat(b.errors)).toEqual([]);
});

it('an offline edit newer than the document’s state wins when its replica reconnects', async () => {
  const { clock, a, b, shareA, shareB, id } = await twoReplicas();
  shareA.disconnect();
  clock.t += 1000;
  await b.memory.update(SHARED, id, { content: 'X edited online by B at t1' });
  await shareB.flush();
  clock.t += 1000;
  await a.memory.update(SHARED, id, { content: 'X edited offline by A at t2' });
  shareA.connect();
  await until(async () => (await b.memory.get(SHARED, id))?.content === 'X edited offline by A at t2', 'B to take A’s newer edit');
  await Promise.all([shareA.flush(), shareB.flush()]);
  expect((await a.memory.get(SHARED, id))?.content).toBe('X edited offline by A at t2');
  expect(await records(a.memory, SHARED)).toEqual(await records(b.memory, SHARED));
  expect(a.errors.concat(b.errors)).toEqual([]);
});
