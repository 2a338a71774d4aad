/**
 * `@zeromem/ai`: zeromem for the Vercel AI SDK. {@link memoryTools} gives a model memory
 * tools bound to one namespace; {@link memoryContextMiddleware} puts a budgeted memory
 * context into every call; {@link claudeMemory} keeps the files of Claude's own memory
 * tool (`anthropic.tools.memory_20250818`) as memories. None calls an LLM.
 */
export { memoryTools, type MemoryTools, type MemoryToolsOptions } from './memory-tools.ts';
export { memoryContextMiddleware, type MemoryContextOptions } from './context-middleware.ts';
export { claudeMemory, type ClaudeMemoryOptions } from './claude-memory.ts';
export type { MemoryCommand } from '@zeromem/tools';
export { memoryViewSchema, type MemoryView } from '@zeromem/tools';
