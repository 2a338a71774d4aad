import type { Memory, Namespace } from '@zeromem/core';
import { bindMemory } from '@zeromem/tools';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerMemoryResources } from './memory-resources.ts';
import { registerMemoryTools } from './memory-tools.ts';

/** Options of {@link createMemoryServer}. */
export interface MemoryServerOptions {
  /** The open memory the tools work on. */
  memory: Memory;
  /** The one namespace of every tool call (from the server's flags or environment, never from the model). */
  namespace: Namespace;
  /** Who acts, for zeromem's audit log. Default `"mcp"`. */
  actor?: string;
  /**
   * Tell the client when memories change (resource subscriptions and list changes), from
   * the client's initialization until the connection closes. Default `true`; `false` for a
   * stateless transport, which has no channel to send them on.
   */
  watch?: boolean;
}

/** The server's name and version as clients see them. */
export const SERVER_INFO = { name: 'zeromem', version: '0.1.0' } as const;

/**
 * An MCP server with zeromem's memory tools and resources, bound to one namespace.
 * Connect it to a transport (`StdioServerTransport`, `StreamableHTTPServerTransport`).
 */
export function createMemoryServer(options: MemoryServerOptions): McpServer {
  const bound = bindMemory({ ...options, actor: options?.actor ?? 'mcp' }, 'createMemoryServer()');
  const server = new McpServer(SERVER_INFO, {
    instructions: 'Long-term memory for this user. Search it (search_memories, build_context) before answering questions about the user; store durable facts with add_memory, and facts that replace earlier ones (how to reach the user, where they live) with set_fact under a stable key; get_profile gives the facts that hold now; delete only when the user asks.',
  });
  registerMemoryTools(server, bound);
  registerMemoryResources(server, bound.memory, bound.namespace, options.watch ?? true);
  return server;
}
