import { afterEach, expect, it } from 'vitest';
import { IDBFactory } from 'fake-indexeddb';
import { namespaceKey } from '@zeromem/core';
import { cleanup, countingSocket, device, testRelay, token, until } from './helpers.ts';

const SHARED = { userId: 'alice', scope: 'tiers' };

afterEach(cleanup);

it('retier() in a shared namespace leaves the record cold and sends nothing', async () => {
  const relay = await testRelay();
  const rw = await token([namespaceKey(SHARED)]);
  // Every record goes cold a millisecond after its last use.
  const laptop = await device('laptop', new IDBFactory(), undefined, { lifecycle: { coldAfter: 1, coldBelowImportance: 1 } });
  const wire = countingSocket();
  const share = await laptop.share(SHARED, { url: relay.url, token: rw, WebSocketPolyfill: wire.WebSocketPolyfill });
  await share.synced;
  const { id } = await laptop.memory.remember({ namespace: SHARED, content: 'cold-marker-5e1c an old note' });
  await share.flush();
  await until(() => Buffer.concat(wire.sent).includes(Buffer.from('cold-marker-5e1c')), 'the write to be sent');
  await new Promise((resolve) => setTimeout(resolve, 5));
  const sentBefore = wire.sent.length;

  expect((await laptop.memory.retier({ namespace: SHARED })).cooled).toBe(1);
  for (let i = 0; i < 5; i++) await share.flush(); // several sync steps: none may touch the record
  expect((await laptop.memory.get(SHARED, id, { rewarm: false }))?.tier).toBe('cold');
  expect(Buffer.concat(wire.sent.slice(sentBefore)).includes(Buffer.from('cold-marker-5e1c'))).toBe(false);
  const audit = await laptop.memory.audit(SHARED);
  expect(audit.map((entry) => entry.op)).toEqual(['remember', 'retier']);
  expect(laptop.errors).toEqual([]);
});
