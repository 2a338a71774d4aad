import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { call, stdioClient, tempHome } from './bin-client.ts';

// Memories as resources that a client can watch: zeromem-mcp tells its client when the
// listed memories change and when a subscribed memory changes, whoever wrote (here another
// zeromem-mcp process on the same store, as Claude Desktop's and Cursor's servers share one).
const home = tempHome();
afterAll(() => home.remove());

/** The notifications a client received, and a way to wait for the next one that matches. */
function notifications(client: Client): { received: string[]; next(want: string, timeoutMs?: number): Promise<void> } {
  const received: string[] = [];
  const waiters: Array<{ want: string; resolve: () => void }> = [];
  const heard = (entry: string) => {
    received.push(entry);
    for (const waiter of waiters.splice(0)) {
      if (waiter.want === entry) waiter.resolve();
      else waiters.push(waiter);
    }
  };
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => heard('list_changed'));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => heard(`updated ${notification.params.uri}`));
  return {
    received,
    next: (want, timeoutMs = 15_000) =>
      new Promise<void>((resolve, reject) => {
        const late = setTimeout(() => reject(new Error(`no "${want}" within ${timeoutMs} ms; received ${JSON.stringify(received)}`)), timeoutMs);
        waiters.push({
          want,
          resolve: () => {
            clearTimeout(late);
            resolve();
          },
        });
      }),
  };
}

describe('zeromem-mcp resources, watched', () => {
  it('declares resource subscriptions and list changes', async () => {
    const server = await stdioClient(['--user', 'alice', '--db', 'declared', '--embedder', 'none'], { ZEROMEM_HOME: home.ZEROMEM_HOME });
    try {
      expect(server.client.getServerCapabilities()?.resources).toEqual({ subscribe: true, listChanged: true });
    } finally {
      await server.close();
    }
  }, 60_000);

  it('another process remembers, updates and forgets: the watching client hears list_changed and, for the memory it subscribed to, updated', async () => {
    const env = { ZEROMEM_HOME: home.ZEROMEM_HOME };
    const watcher = await stdioClient(['--user', 'alice', '--db', 'watched', '--embedder', 'none'], env);
    const writer = await stdioClient(['--user', 'alice', '--db', 'watched', '--embedder', 'none'], env);
    try {
      const heard = notifications(watcher.client);
      const listed = heard.next('list_changed');
      const { id } = await call<{ id: string }>(writer.client, 'add_memory', { content: 'Alice takes the 8:15 train' });
      await listed;
      const uri = `memory://${id}`;
      expect((await watcher.client.listResources()).resources.map((resource) => resource.uri)).toEqual([uri]);

      await watcher.client.subscribeResource({ uri });
      const updated = heard.next(`updated ${uri}`);
      await call(writer.client, 'update_memory', { id, importance: 0.9 });
      await updated;
      const read = await watcher.client.readResource({ uri });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id, importance: 0.9 });

      // A memory of another namespace is not this client's business.
      const other = await stdioClient(['--user', 'bob', '--db', 'watched', '--embedder', 'none'], env);
      await call(other.client, 'add_memory', { content: 'Bob cycles to work' });
      await other.close();

      const forgotten = heard.next(`updated ${uri}`);
      const relisted = heard.next('list_changed');
      await call(writer.client, 'delete_memory', { id });
      await Promise.all([forgotten, relisted]);
      expect((await watcher.client.listResources()).resources).toEqual([]);
      expect(heard.received).toEqual(['list_changed', `updated ${uri}`, ...heard.received.slice(2)]);
      expect(heard.received.slice(2).sort()).toEqual(['list_changed', `updated ${uri}`]);
    } finally {
      await watcher.close();
      await writer.close();
    }
  }, 60_000);
});
