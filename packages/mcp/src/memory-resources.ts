import type { ListOptions, ListPage, Memory, MemoryRecord, Namespace } from '@zeromem/core';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { memoryView } from '@zeromem/core/internal';

/** The page `resources/list` answers with: the newest 100 memories. */
const LISTED: ListOptions = { limit: 100 };

/**
 * Memories as resources, `memory://<id>`, for clients that let a user attach them: the
 * newest 100 are listed, any id of the server's namespace can be read. With `watch`, a
 * client is told of changes, whoever made them (this server, another zeromem-mcp, a script
 * on the same store): `notifications/resources/list_changed` when the listed memories
 * change, `notifications/resources/updated` when a memory it subscribed to changes or is
 * forgotten. The watching starts when the client has initialized and stops when the
 * connection closes.
 */
export function registerMemoryResources(server: McpServer, memory: Memory, namespace: Readonly<Namespace>, watch: boolean): void {
  server.registerResource(
    'memory',
    new ResourceTemplate('memory://{id}', {
      list: async () => ({ resources: listed(await memory.list(namespace, LISTED)) }),
    }),
    { title: 'Memory', description: 'One stored memory, as JSON', mimeType: 'application/json' },
    async (uri, { id }) => {
      const record = await memory.get(namespace, String(id), { rewarm: false });
      if (!record) throw new Error(`No memory ${String(id)} in this server's namespace.`);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: view(record) }] };
    },
  );
  if (watch) watchMemoryResources(server, memory, namespace);
}

function listed(page: ListPage): Array<{ uri: string; name: string; mimeType: string }> {
  return page.items.map((record) => ({ uri: `memory://${record.id}`, name: record.content.slice(0, 80), mimeType: 'application/json' }));
}

function view(record: MemoryRecord): string {
  return JSON.stringify(memoryView(record), null, 2);
}

/**
 * Subscriptions and change notifications through `memory.watch()`, which hears this
 * process's writes and other processes' commits to the same store.
 */
function watchMemoryResources(server: McpServer, memory: Memory, namespace: Readonly<Namespace>): void {
  server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
  /** Each subscribed uri, with the memory's JSON as the client last could have read it (null: none). */
  const subscribed = new Map<string, string | null>();
  const current = async (uri: string): Promise<string | null> => {
    const record = await memory.get(namespace, uri.slice('memory://'.length), { rewarm: false });
    return record ? view(record) : null;
  };
  // Notifications go out in the order the changes were seen: one check at a time.
  let checks = Promise.resolve();
  const inTurn = (check: () => Promise<void>) => {
    checks = checks.then(check).catch(() => {}); // a closed transport or a closed memory: nothing to tell
  };

  server.server.setRequestHandler(SubscribeRequestSchema, async ({ params }) => {
    if (!params.uri.startsWith('memory://')) throw new Error(`Only memory://<id> resources can be subscribed to, not ${params.uri}.`);
    subscribed.set(params.uri, await current(params.uri));
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, ({ params }) => {
    subscribed.delete(params.uri);
    return {};
  });

  let lastListed: string | undefined;
  const checkSubscribed = async () => {
    for (const [uri, seen] of subscribed) {
      const now = await current(uri);
      if (now === seen || !subscribed.has(uri)) continue;
      subscribed.set(uri, now);
      await server.server.sendResourceUpdated({ uri });
    }
  };
  const onList = (page: ListPage) =>
    inTurn(async () => {
      const key = JSON.stringify(listed(page));
      const changed = lastListed !== undefined && key !== lastListed;
      lastListed = key; // the first page is what the client can list now: no change yet
      if (changed) await server.sendResourceListChanged();
      await checkSubscribed();
    });
  const ignore = () => {}; // a failed re-query: the watch goes on and the next change is seen

  let stops: Array<() => void> = [];
  server.server.oninitialized = () => {
    stops = [
      memory.watch(namespace, LISTED, { next: onList, error: ignore }),
      // The most recently updated memory changes with every write to the namespace, also
      // to a subscribed memory that is not among the listed newest.
      memory.watch(namespace, { orderBy: 'updatedAt', limit: 1 }, { next: () => inTurn(checkSubscribed), error: ignore }),
    ];
  };
  server.server.onclose = () => {
    for (const stop of stops) stop();
    stops = [];
    subscribed.clear();
  };
}
