import fs from 'node:fs';
import WebSocket from 'ws';
import { afterEach, expect, it, vi } from 'vitest';
import { namespaceKey, openMemory } from '@zeromem/core';
import { shareNamespace } from '../src/index.ts';
import { cleanup, tempDir, testRelay, token, until } from './helpers.ts';

// Write-to-visible on the SQLite engine (issue 32): a remember() is acknowledged once the
// WAL holding its commit is synced, but the commit is readable at once, so sync sends it to
// the relay while that sync runs (on libuv's threads) rather than after it. Acknowledged to
// whom: the caller of remember() after its own sync; another replica only after the relay
// stored the change. A crash before the writer's sync loses a write nobody was told of, and
// the relay gives it back to the writer on its next sync (the document holds it).

const SHARED = { userId: 'alice', scope: 'fast' };

afterEach(async () => {
  vi.restoreAllMocks();
  await cleanup();
});

it("another replica sees a remembered record while the writer's own sync of its file still runs", async () => {
  const relay = await testRelay();
  const rw = await token([namespaceKey(SHARED)]);
  const dir = tempDir();
  const writer = await openMemory({ name: 'writer', directory: dir });
  const reader = await openMemory({ name: 'reader', directory: dir });
  const options = { url: relay.url, token: rw, WebSocketPolyfill: WebSocket, pollMs: 20, maxBackoffMs: 100 };
  const shares = [await shareNamespace(writer, SHARED, options), await shareNamespace(reader, SHARED, options)];
  try {
    await Promise.all(shares.map((share) => share.synced));
    // From now on every sync of a file waits until released.
    const held: Array<() => void> = [];
    const real = fs.fdatasync.bind(fs);
    vi.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, done: (err: NodeJS.ErrnoException | null) => void) => {
      held.push(() => real(fd, done));
    }) as typeof fs.fdatasync);
    let acknowledged = false;
    const remembered = writer.remember({ namespace: SHARED, content: 'sent before it is synced here' }).then((record) => {
      acknowledged = true;
      return record;
    });
    await until(async () => (await reader.list(SHARED)).items.length === 1, 'the record on the other replica');
    expect(acknowledged).toBe(false);
    vi.restoreAllMocks();
    held.splice(0).forEach((sync) => sync());
    const { id } = await remembered;
    expect((await reader.get(SHARED, id))?.content).toBe('sent before it is synced here');
  } finally {
    vi.restoreAllMocks();
    for (const share of shares) await share.close();
    await Promise.all([writer.close(), reader.close()]);
  }
});
