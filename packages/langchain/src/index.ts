/**
 * `@zeromem/langchain`: zeromem for LangChain.js and LangGraph.js. A retriever over
 * recall, a chat message history over sessions, a LangGraph store over namespaces, and
 * the files of Claude's memory tool (`@langchain/anthropic`'s `memory_20250818`) kept as
 * memories. None of them calls an LLM.
 */
export { ZeromemRetriever, type ZeromemRetrieverInput, type ZeromemDocumentMetadata } from './retriever.ts';
export { ZeromemChatMessageHistory, type ZeromemChatMessageHistoryInput } from './chat-history.ts';
export { ZeromemStore, type ZeromemStoreInput } from './store.ts';
export { memoryTools, type MemoryToolsOptions, type MemoryToolOf } from './memory-tools.ts';
export { claudeMemory, type ClaudeMemoryOptions } from './claude-memory.ts';
export type { MemoryCommand } from '@zeromem/tools';
