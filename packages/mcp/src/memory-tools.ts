import { describeToolError, MEMORY_TOOLS, type BoundMemory, type MemoryTool } from '@zeromem/tools';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * Registers the catalog's memory tools (`@zeromem/tools`) on an MCP server, all bound to
 * one namespace (chosen by who starts the server, never by the model: no tool takes a
 * namespace, and inputs are strict). Every tool has input and output schemas and
 * annotations, and returns `structuredContent`. No tool calls an LLM.
 */
export function registerMemoryTools(server: McpServer, bound: BoundMemory): void {
  for (const tool of Object.values(MEMORY_TOOLS) as MemoryTool[]) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, annotations: tool.annotations },
      (input: Record<string, unknown>) => toolCall(() => tool.run(bound, input)),
    );
  }
}

/**
 * Runs a tool body: its value is the structured content, and the same as JSON text for
 * clients that only read text; a ZeromemError becomes an MCP tool error that says what to fix.
 */
async function toolCall(body: () => Promise<Record<string, unknown>>): Promise<CallToolResult> {
  try {
    const value = await body();
    return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value };
  } catch (err) {
    const text = describeToolError(err);
    if (text === undefined) throw err;
    return { isError: true, content: [{ type: 'text', text }] };
  }
}
