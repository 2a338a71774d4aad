import type { Memory, Namespace } from '@zeromem/core';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { memoryView } from '@zeromem/core/internal';

/**
 * Memories as resources, `memory://<id>`, for clients that let a user attach them: the
 * newest 100 are listed, any id of the server's namespace can be read.
 */
export function registerMemoryResources(server: McpServer, memory: Memory, namespace: Readonly<Namespace>): void {
  server.registerResource(
    'memory',
    new ResourceTemplate('memory://{id}', {
      list: async () => {
        const page = await memory.list(namespace, { limit: 100 });
        return { resources: page.items.map((record) => ({ uri: `memory://${record.id}`, name: record.content.slice(0, 80), mimeType: 'application/json' })) };
      },
    }),
    { title: 'Memory', description: 'One stored memory, as JSON', mimeType: 'application/json' },
    async (uri, { id }) => {
      const record = await memory.get(namespace, String(id), { rewarm: false });
      if (!record) throw new Error(`No memory ${String(id)} in this server's namespace.`);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(memoryView(record), null, 2) }] };
    },
  );
}
