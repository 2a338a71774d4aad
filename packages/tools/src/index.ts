/**
 * `@zeromem/tools`: zeromem's memory tool catalog, the one place that says which tools a
 * model gets (names, descriptions, zod schemas, limits, annotations) and what each does
 * over `@zeromem/core`. `@zeromem/ai`, `@zeromem/mcp` and `@zeromem/langchain` render it
 * for their frameworks; applications use those packages.
 *
 * @packageDocumentation
 */
export { MEMORY_TOOLS, type MemoryTool, type MemoryToolName, type MemoryToolInput, type MemoryToolOutput, type ToolAnnotations } from './catalog.ts';
export { bindMemory, type BoundMemory } from './bound-memory.ts';
export { describeToolError } from './tool-error.ts';
export { memoryViewSchema, type MemoryView } from './memory-view.ts';
export { createMemoryTool, type ClaudeMemoryTool, type MemoryToolOptions, type MemoryFileVersion } from './memory-tool/memory-tool.ts';
export { ANTHROPIC_MEMORY_TOOL, memoryCommandSchema, type MemoryCommand } from './memory-tool/command.ts';
export type { MemoryFileEntry } from './memory-tool/memory-files.ts';
