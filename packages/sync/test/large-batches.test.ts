import { afterEach, expect, it } from 'vitest';
import { namespaceKey } from '@zeromem/core';
import { cleanup, device, records, testRelay, token, until } from './helpers.ts';

const SHARED = { userId: 'alice', scope: 'large' };

afterEach(cleanup);

it('many records near the content limit reach the other replica (updates stay under the relay’s 1 MiB message limit)', async () => {
  const relay = await testRelay();
  const rw = await token([namespaceKey(SHARED)]);
  const laptop = await device('laptop');
  const phone = await device('phone');
  // 40 records of ~32 KB each (~1.3 MB): written before sharing, so one step sends them all.
  for (let i = 0; i < 40; i++) {
    await laptop.memory.remember({ namespace: SHARED, content: `record ${i} ${'lorem ipsum '.repeat(2700)}`.slice(0, 32_000) });
  }
  const a = await laptop.share(SHARED, { url: relay.url, token: rw });
  const b = await phone.share(SHARED, { url: relay.url, token: rw });
  await Promise.all([a.synced, b.synced]);
  await until(async () => (await records(phone.memory, SHARED)).length === 40, 'the phone to hold all 40', 20_000);
  expect(await records(phone.memory, SHARED)).toEqual(await records(laptop.memory, SHARED));
  expect(laptop.errors.concat(phone.errors)).toEqual([]);
});

it('a record over the relay’s message limit is reported once as QUOTA_EXCEEDED through onError', async () => {
  const relay = await testRelay({ maxMessageBytes: 16 * 1024 });
  const rw = await token([namespaceKey(SHARED)]);
  const laptop = await device('laptop');
  const share = await laptop.share(SHARED, { url: relay.url, token: rw });
  await share.synced;
  await laptop.memory.remember({ namespace: SHARED, content: 'too big '.repeat(3000) });
  await until(() => laptop.errors.length > 0, 'the error to be reported');
  expect(laptop.errors[0]).toMatchObject({ code: 'QUOTA_EXCEEDED' });
  expect(laptop.errors[0]!.message).toContain('maxMessageBytes');
  await new Promise((resolve) => setTimeout(resolve, 500)); // the provider reconnects and is closed again meanwhile
  expect(laptop.errors).toHaveLength(1);
});
