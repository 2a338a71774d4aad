import { afterEach, expect, it } from 'vitest';
import { ZeromemError, namespaceKey } from '@zeromem/core';
import { replicaOf } from '@zeromem/core/internal';
import { cleanup, device, records, testRelay, token, until } from './helpers.ts';

const SHARED = { userId: 'alice', scope: 'apply-failure' };

afterEach(cleanup);

it('remote changes a failed applyReplicated did not store are applied on the next step, and the failure is reported', async () => {
  const relay = await testRelay();
  const rw = await token([namespaceKey(SHARED)]);
  const laptop = await device('laptop');
  const phone = await device('phone');
  // The phone's store fails once (a full disk, say), then recovers.
  const replica = replicaOf(phone.memory);
  const apply = replica.apply.bind(replica);
  let failures = 0;
  replica.apply = async (...args) => {
    const [, changes] = args;
    if (failures === 0 && changes.length > 0) {
      failures++;
      throw new ZeromemError('STORAGE_FAILED', 'disk full (test)');
    }
    return apply(...args);
  };
  const a = await laptop.share(SHARED, { url: relay.url, token: rw });
  const b = await phone.share(SHARED, { url: relay.url, token: rw });
  await Promise.all([a.synced, b.synced]);
  const written = await laptop.memory.remember({ namespace: SHARED, content: 'arrives despite one failed write' });
  await until(async () => (await phone.memory.get(SHARED, written.id)) !== undefined, 'the phone to store it after the failure');
  expect(failures).toBe(1);
  expect(phone.errors.map((err) => err.code)).toEqual(['STORAGE_FAILED']);
  expect(await records(phone.memory, SHARED)).toEqual(await records(laptop.memory, SHARED));
});
