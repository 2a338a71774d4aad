import type { ToolRunnableConfig } from '@langchain/core/tools';
import type { Memory } from '@zeromem/core';
import { createMemoryTool, type MemoryCommand, type MemoryToolOptions } from '@zeromem/tools';

/** Options of {@link claudeMemory}: the memory, and `createMemoryTool`'s options of `@zeromem/tools` (`namespace`, `actor`, `clock`). */
export interface ClaudeMemoryOptions extends MemoryToolOptions {
  /** The open memory (`openMemory()` of `@zeromem/core`). */
  memory: Memory;
}

/**
 * The `execute` of Claude's memory tool for LangChain (`memory_20250818({ execute })` of
 * `@langchain/anthropic`, bound to a `ChatAnthropic` with `bindTools`), kept by zeromem:
 * each file under `/memories` is a memory of the namespace you bind here (the model never
 * chooses it), its path the key, and every edit a new version, so the files are versioned,
 * found by recall, synced and forgotten like any memory. The six commands answer with the
 * text Anthropic's documentation shows, errors included.
 *
 * `@langchain/anthropic`'s schema for `view` has no `view_range` and strips it; when the
 * tool is run with the model's tool call (`tool.invoke(toolCall)`, a `ToolNode`, an
 * agent), the range is read from that call, so `view_range` works as the model expects.
 *
 * One call is one agent: a `str_replace` or `insert` applies to the version of the file
 * this agent last saw; when another agent changed it since, the edit is refused with a
 * message to view the file again.
 *
 * @example
 * import { tools } from '@langchain/anthropic';
 * import { openMemory } from '@zeromem/core';
 * import { claudeMemory } from '@zeromem/langchain';
 *
 * const memory = await openMemory({ name: 'claude-files' });
 * const memoryTool = tools.memory_20250818({ execute: claudeMemory({ memory, namespace: { userId: 'alice' } }) }); // for ChatAnthropic's bindTools
 * await memoryTool.invoke({ command: 'create', path: '/memories/alice.md', file_text: 'Alice likes jazz.\nShe lives in Porto.' });
 * // Run with the model's tool call, as an agent does: view_range reaches the memory tool.
 * const answer = await memoryTool.invoke({ type: 'tool_call', id: 'toolu_01', name: 'memory', args: { command: 'view', path: '/memories/alice.md', view_range: [2, 2] } });
 * console.log(JSON.stringify(answer.content)); // "Here's the content of /memories/alice.md with line numbers:\n     2\tShe lives in Porto."
 * await memory.close();
 */
export function claudeMemory(options: ClaudeMemoryOptions): (command: MemoryCommand, config?: ToolRunnableConfig) => Promise<string> {
  const { memory, ...toolOptions } = options;
  const tool = createMemoryTool(memory, toolOptions);
  return (command, config) => tool.execute(withViewRange(command, config));
}

/** A `view` with the `view_range` of the model's own tool call, when LangChain's schema dropped it. */
function withViewRange(command: MemoryCommand, config: ToolRunnableConfig | undefined): MemoryCommand {
  if (command.command !== 'view' || 'view_range' in command) return command;
  const sent = config?.toolCall?.args as { command?: unknown; path?: unknown; view_range?: unknown } | undefined;
  if (sent?.command !== 'view' || sent.path !== command.path || sent.view_range === undefined) return command;
  // Handed on as the model sent it: the memory tool checks it like every other input.
  return { ...command, view_range: sent.view_range } as MemoryCommand;
}
