import { bindMemory, MEMORY_TOOLS, type MemoryTool, type MemoryToolInput, type MemoryToolName, type MemoryToolOutput } from '@zeromem/tools';
import type { Memory, Namespace } from '@zeromem/core';
import { tool, type Tool } from 'ai';

/** Options of {@link memoryTools}. */
export interface MemoryToolsOptions {
  /** The open memory (`openMemory()` of `@zeromem/core`). */
  memory: Memory;
  /**
   * The one namespace every tool reads and writes, chosen by you (the signed-in user,
   * your agent). No tool takes a namespace, so the model can never reach another one.
   */
  namespace: Namespace;
  /**
   * Ask the user before `delete_memory` and `delete_all_memories` run (the AI SDK's
   * tool approval: the call stops with a `tool-approval-request`). Default true.
   * A `toolApproval` you pass to `generateText`/`ToolLoopAgent` takes precedence.
   */
  forgetNeedsApproval?: boolean;
  /** Who acts, for zeromem's audit log. Default: the memory's actor. */
  actor?: string;
}

/** The tool set {@link memoryTools} returns: inputs and outputs as the model sees them. */
export type MemoryTools = { [Name in MemoryToolName]: Tool<MemoryToolInput<Name>, MemoryToolOutput<Name>> };

/**
 * Memory tools for the Vercel AI SDK, zeromem's tool catalog (`@zeromem/tools`), named as
 * mem0's: `add_memory`, `search_memories`, `get_memory`, `list_memories`, `update_memory`,
 * `delete_memory`, `delete_all_memories`, `build_context`, and for facts that change,
 * `set_fact` (a fact under a key, replacing the key's earlier one) and `get_profile`. Every tool works in the
 * namespace you bind here; inputs are strict objects, so a model that sends a namespace,
 * a user id or any unknown field gets a validation error and nothing runs. The forgetting
 * tools need approval by default. No tool calls an LLM.
 *
 * @example llm
 * const result = await generateText({
 *   model,
 *   tools: memoryTools({ memory, namespace: { userId: 'alice' } }),
 *   stopWhen: stepCountIs(5),
 *   prompt: 'Remember that I prefer window seats.',
 * });
 */
export function memoryTools(options: MemoryToolsOptions): MemoryTools {
  const bound = bindMemory(options, 'memoryTools()');
  const forgetNeedsApproval = options.forgetNeedsApproval ?? true;
  const entries = (Object.values(MEMORY_TOOLS) as MemoryTool[]).map((entry) => [
    entry.name,
    tool({
      description: entry.description,
      inputSchema: entry.inputSchema,
      outputSchema: entry.outputSchema,
      ...(entry.forgets ? { needsApproval: forgetNeedsApproval } : {}),
      execute: (input: Record<string, unknown>) => entry.run(bound, input),
    }),
  ]);
  return Object.fromEntries(entries) as MemoryTools;
}

