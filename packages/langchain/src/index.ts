/**
 * `@zeromem/langchain`: zeromem for LangChain.js and LangGraph.js. A retriever over
 * recall, a chat message history over sessions, and a LangGraph store over namespaces.
 * None of them calls an LLM.
 */
export { ZeromemRetriever, type ZeromemRetrieverInput, type ZeromemDocumentMetadata } from './retriever.ts';
export { ZeromemChatMessageHistory, type ZeromemChatMessageHistoryInput } from './chat-history.ts';
export { ZeromemStore, type ZeromemStoreInput } from './store.ts';
export { memoryTools, type MemoryToolsOptions, type MemoryToolOf } from './memory-tools.ts';
