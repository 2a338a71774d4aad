import type { Memory } from '@zeromem/core';
import { createMemoryTool, type MemoryCommand, type MemoryToolOptions } from '@zeromem/tools';

/** Options of {@link claudeMemory}: the memory, and `createMemoryTool`'s options of `@zeromem/tools` (`namespace`, `actor`, `clock`). */
export interface ClaudeMemoryOptions extends MemoryToolOptions {
  /** The open memory (`openMemory()` of `@zeromem/core`). */
  memory: Memory;
}

/**
 * The `execute` of Claude's memory tool for the AI SDK's Anthropic provider
 * (`anthropic.tools.memory_20250818({ execute })` of `@ai-sdk/anthropic`), kept by zeromem:
 * each file under `/memories` is a memory of the namespace you bind here (the model never
 * chooses it), its path the key, and every edit a new version, so the files are versioned,
 * found by recall, synced and forgotten like any memory. The six commands (`view`,
 * `create`, `str_replace`, `insert`, `delete`, `rename`) answer with the text Anthropic's
 * documentation shows, errors included, which the model reads and acts on.
 *
 * One call is one agent: a `str_replace` or `insert` applies to the version of the file
 * this agent last saw, so when another agent (another call, process or device) changed it
 * since, the edit is refused with a message to view the file again, and no edit is lost.
 *
 * @example llm
 * const tools = { memory: anthropic.tools.memory_20250818({ execute: claudeMemory({ memory, namespace: { userId: 'alice' } }) }) };
 */
export function claudeMemory(options: ClaudeMemoryOptions): (command: MemoryCommand) => Promise<string> {
  const { memory, ...toolOptions } = options;
  const tool = createMemoryTool(memory, toolOptions);
  return (command) => tool.execute(command);
}
