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
 * @example
 * import { claudeMemory } from '@zeromem/ai';
 * import { openMemory } from '@zeromem/core';
 *
 * const memory = await openMemory({ name: 'claude-files' });
 * const execute = claudeMemory({ memory, namespace: { userId: 'alice' } }); // tools: { memory: anthropic.tools.memory_20250818({ execute }) }
 * // What the provider calls for each tool_use block; the text goes back as its tool_result.
 * console.log(await execute({ command: 'create', path: '/memories/alice.md', file_text: 'Alice likes jazz.' })); // File created successfully at: /memories/alice.md
 * console.log(await execute({ command: 'view', path: '/etc/passwd' })); // Error: The path /etc/passwd is outside /memories: …
 * await memory.close();
 */
export function claudeMemory(options: ClaudeMemoryOptions): (command: MemoryCommand) => Promise<string> {
  const { memory, ...toolOptions } = options;
  const tool = createMemoryTool(memory, toolOptions);
  return (command) => tool.execute(command);
}
