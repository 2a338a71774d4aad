import { afterEach, expect, it } from 'vitest';
import { namespaceKey } from '@zeromem/core';
import { cleanup, device, storedDocuments, testRelay, token, until } from './helpers.ts';

const SHARED = { userId: 'alice', scope: 'overwrites' };

afterEach(cleanup);

it('the old text of an updated record leaves the stored shared document soon, on every replica', async () => {
  const relay = await testRelay();
  const rw = await token([namespaceKey(SHARED)]);
  const laptop = await device('laptop');
  const phone = await device('phone');
  const a = await laptop.share(SHARED, { url: relay.url, token: rw });
  const b = await phone.share(SHARED, { url: relay.url, token: rw });
  await Promise.all([a.synced, b.synced]);
  const written = await laptop.memory.remember({ namespace: SHARED, content: 'old-text-6c2e the safe code is 4411', tags: ['old-tag-6c2e'] });
  await until(async () => (await storedDocuments(phone)).includes('old-text-6c2e'), 'the phone to store the first version');

  await laptop.memory.update(SHARED, written.id, { content: 'new-text-19ab the safe code changed', tags: ['new-tag'] });
  await until(async () => (await phone.memory.get(SHARED, written.id))?.content.startsWith('new-text-19ab') === true, 'the phone to get the update');
  for (const d of [laptop, phone]) {
    await until(async () => {
      const stored = await storedDocuments(d);
      return stored.includes('new-text-19ab') && !stored.includes('old-text-6c2e') && !stored.includes('old-tag-6c2e');
    }, `${d.name}'s stored document to drop the old version`);
  }
  expect(laptop.errors.concat(phone.errors)).toEqual([]);
});
