import { afterEach, expect, it } from 'vitest';
import { ZeromemError, namespaceKey } from '@zeromem/core';
import { replicaOf } from '@zeromem/core/internal';
import { cleanup, device, testRelay, token, until } from './helpers.ts';

const SHARED = { userId: 'alice', scope: 'restart-repair' };

afterEach(cleanup);

it('a read-only replica that stored a remote forget but crashed before applying it forgets on restart', async () => {
  const relay = await testRelay();
  const room = namespaceKey(SHARED);
  const rw = await token([room]);
  const ro = await token([room], 'read');
  const laptop = await device('laptop');
  const phone = await device('phone');
  const a = await laptop.share(SHARED, { url: relay.url, token: rw });
  const b = await phone.share(SHARED, { url: relay.url, token: ro });
  await Promise.all([a.synced, b.synced]);
  const target = await laptop.memory.remember({ namespace: SHARED, content: 'forgotten while the phone crashed' });
  await until(async () => (await phone.memory.get(SHARED, target.id)) !== undefined, 'the phone to get it');

  // The phone stores the forget in its document, then "crashes" before its store applies it.
  const replica = replicaOf(phone.memory);
  const apply = replica.apply.bind(replica);
  replica.apply = async (...args) => {
    if (args[1].some((change) => 'delete' in change)) throw new ZeromemError('STORAGE_FAILED', 'crash (test)');
    return apply(...args);
  };
  await laptop.memory.forget(SHARED, target.id);
  await until(() => phone.errors.some((err) => err.code === 'STORAGE_FAILED'), 'the phone to receive the forget');
  await phone.close();

  const reopened = await phone.reopen();
  expect(await reopened.memory.get(SHARED, target.id)).toBeDefined(); // the crash left it in the store
  const again = await reopened.share(SHARED, { url: relay.url, token: ro });
  await again.synced;
  await until(async () => (await reopened.memory.get(SHARED, target.id)) === undefined, 'the restart to apply the stored forget');
  expect(reopened.errors).toEqual([]);
});
