import type { Memory, Namespace } from '@zeromem/core';
import { bindMemory, MEMORY_TOOLS, type MemoryTool, type MemoryToolName } from '@zeromem/tools';
import { tool, type DynamicStructuredTool } from '@langchain/core/tools';

/** Options of {@link memoryTools}. */
export interface MemoryToolsOptions {
  /** The open memory (`openMemory()` of `@zeromem/core`). */
  memory: Memory;
  /** The one namespace every tool reads and writes, chosen by you: no tool takes one, so the model cannot reach another. */
  namespace: Namespace;
  /** Who acts, for zeromem's audit log. Default: the memory's actor. */
  actor?: string;
}

/** One tool of {@link memoryTools}: `metadata` holds the catalog's `annotations` and `forgets`. */
export type MemoryToolOf = DynamicStructuredTool & { name: MemoryToolName };

/**
 * zeromem's memory tools (the catalog of `@zeromem/tools`, as `@zeromem/ai` and
 * `@zeromem/mcp` give them) as LangChain tools, for `bindTools`, a `ToolNode` or
 * `createAgent`: `add_memory`, `search_memories`, `get_memory`, `list_memories`,
 * `update_memory`, `delete_memory`, `delete_all_memories`, `build_context`, `set_fact`,
 * `get_profile`. Inputs are
 * strict; each tool returns its output as JSON text. `metadata.forgets` marks the two that
 * forget for good, for a human-in-the-loop step before them. No tool calls an LLM.
 *
 * @example
 * import { openMemory } from '@zeromem/core';
 * import { memoryTools } from '@zeromem/langchain';
 *
 * const memory = await openMemory({ name: 'my-agent' });
 * const tools = memoryTools({ memory, namespace: { userId: 'alice' } });
 * await tools.find((t) => t.name === 'add_memory')!.invoke({ content: 'Alice is allergic to peanuts' });
 * const found = JSON.parse(await tools.find((t) => t.name === 'search_memories')!.invoke({ query: 'allergic' }));
 * console.log(found.results.map((r) => r.content)); // [ 'Alice is allergic to peanuts' ]
 * await memory.close();
 */
export function memoryTools(options: MemoryToolsOptions): MemoryToolOf[] {
  const bound = bindMemory(options, 'memoryTools()');
  return (Object.values(MEMORY_TOOLS) as MemoryTool[]).map(
    (entry) =>
      tool(async (input: Record<string, unknown>) => JSON.stringify(await entry.run(bound, input)), {
        name: entry.name,
        description: entry.description,
        schema: entry.inputSchema,
        metadata: { annotations: entry.annotations, forgets: entry.forgets },
      }) as MemoryToolOf,
  );
}
