import WebSocket from 'ws';
import { afterEach, expect, it } from 'vitest';
import { namespaceKey, openMemory, type ZeromemError } from '@zeromem/core';
import { shareNamespace } from '../src/index.ts';
import { cleanup, device, directoryContains, tempDir, testRelay, token, until } from './helpers.ts';

const SHARED = { userId: 'alice', scope: 'offline-erasure' };

afterEach(cleanup);

/**
 * Issue 29 item 2: a forget (or an update that replaces content) made while the share is
 * offline must leave every file of the device's store directory at once, not when the share
 * reconnects (which may be never). The device is a memory on disk (Node's engine), sharing
 * without any storage option, as `zeromem serve --share` and `zeromem-mcp --share` do.
 */
it('a forget and a content update while offline leave no byte of the old text in any file of the store directory', async () => {
  const relay = await testRelay();
  const rw = await token([namespaceKey(SHARED)]);
  const dir = tempDir();
  const errors: ZeromemError[] = [];
  const memory = await openMemory({ name: 'laptop', directory: dir, historyDepth: 0 });
  const options = { url: relay.url, token: rw, WebSocketPolyfill: WebSocket, pollMs: 20, maxBackoffMs: 100, onError: (err: ZeromemError) => errors.push(err) };
  let share = await shareNamespace(memory, SHARED, options);
  await share.synced;
  const doomed = await memory.remember({ namespace: SHARED, content: 'forgotten-offline-5d1e the alarm code is 0451' });
  const edited = await memory.remember({ namespace: SHARED, content: 'replaced-offline-93ac the safe is behind the painting' });
  await share.flush();
  expect(directoryContains(dir, 'forgotten-offline-5d1e')).toBe(true); // in the store and the shared document

  // Another replica, to check that what happened offline still reaches the others.
  const phone = await device('phone');
  const b = await phone.share(SHARED, { url: relay.url, token: rw });
  await b.synced;
  await until(async () => (await phone.memory.count(SHARED)) === 2, 'the phone to get both records');

  share.disconnect();
  await until(() => share.status === 'offline', 'the share to be offline');
  await memory.forget(SHARED, doomed.id);
  await memory.update(SHARED, edited.id, { content: 'kept-offline-7b20 the painting was moved' });
  await share.flush();
  expect(directoryContains(dir, 'forgotten-offline-5d1e')).toBe(false);
  await until(() => !directoryContains(dir, 'replaced-offline-93ac'), 'the replaced text to leave the store directory', 5000);

  await share.close();
  await memory.close();
  expect(directoryContains(dir, 'forgotten-offline-5d1e')).toBe(false);
  expect(directoryContains(dir, 'replaced-offline-93ac')).toBe(false);
  expect(directoryContains(dir, 'kept-offline-7b20')).toBe(true);

  // Reopened and online again: the forget and the update reach the other replica.
  const reopened = await openMemory({ name: 'laptop', directory: dir, historyDepth: 0 });
  share = await shareNamespace(reopened, SHARED, options);
  await share.synced;
  await until(async () => (await phone.memory.get(SHARED, doomed.id)) === undefined, 'the phone to forget');
  await until(async () => (await phone.memory.get(SHARED, edited.id))?.content === 'kept-offline-7b20 the painting was moved', 'the phone to get the update');
  expect(await reopened.count(SHARED)).toBe(1);
  await share.close();
  await reopened.close();
  expect(directoryContains(dir, 'forgotten-offline-5d1e')).toBe(false);
  expect(directoryContains(dir, 'replaced-offline-93ac')).toBe(false);
  expect(errors.concat(phone.errors)).toEqual([]);
});
