import { afterEach, expect, it } from 'vitest';
import { Dexie, type ObservabilitySet } from 'dexie';
import { namespaceKey } from '@zeromem/core';
import { replicaOf } from '@zeromem/core/internal';
import { cleanup, device, testRelay, token } from './helpers.ts';

const SHARED = { userId: 'alice', scope: 'idle' };

afterEach(cleanup);

it('an idle share writes nothing to its stored document', async () => {
  const relay = await testRelay();
  const rw = await token([namespaceKey(SHARED)]);
  const laptop = await device('laptop');
  const share = await laptop.share(SHARED, { url: relay.url, token: rw });
  await share.synced;
  // The document log's tables in the memory's own database.
  const writes: string[] = [];
  const listener = (parts: ObservabilitySet) => writes.push(...Object.keys(parts).filter((part) => part.startsWith('idb://laptop/doc')));
  Dexie.on('storagemutated', listener);
  try {
    await laptop.memory.remember({ namespace: SHARED, content: 'one note' });
    await share.flush();
    await share.flush(); // what the first write changed is stored
    expect(writes.length).toBeGreaterThan(0); // control: a change is stored
    writes.length = 0;
    for (let i = 0; i < 10; i++) await share.flush(); // ten idle sync steps
  } finally {
    Dexie.on.storagemutated.unsubscribe(listener);
  }
  expect(writes).toEqual([]);
});

it('a local change is stored in the document log together with the cursor that covers it (one commit, not two)', async () => {
  const relay = await testRelay();
  const rw = await token([namespaceKey(SHARED)]);
  const laptop = await device('laptop');
  const log = replicaOf(laptop.memory).docLog;
  const appends: Array<{ updates: number; cursor: number | undefined }> = [];
  const append = log.append.bind(log);
  log.append = (room, updates, cursor) => {
    appends.push({ updates: updates.length, cursor });
    return append(room, updates, cursor);
  };
  const share = await laptop.share(SHARED, { url: relay.url, token: rw });
  await share.synced;
  await share.flush();
  appends.length = 0;
  await laptop.memory.remember({ namespace: SHARED, content: 'one note' });
  await share.flush();
  await share.flush();
  expect(appends).toEqual([{ updates: 1, cursor: expect.any(Number) }]);
});
