// @zeromem/ai and @zeromem/langchain as a user's plain Node script uses them: an AI SDK
// tool loop (the AI SDK's mock model stands in for the LLM) that remembers and later
// recalls a fact, then a LangChain retriever, chat history and LangGraph store.
import { openMemory } from '@zeromem/core';
import { memoryContextMiddleware, memoryTools } from '@zeromem/ai';
import { ZeromemChatMessageHistory, ZeromemRetriever, ZeromemStore } from '@zeromem/langchain';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

const memory = await openMemory({ name: `integrations-${Date.now()}` });
const namespace = { userId: 'alice' };
const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } };
const say = (text) => ({ content: [{ type: 'text', text }], finishReason: { unified: 'stop' }, usage, warnings: [] });
const llm = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    const last = prompt.at(-1);
    if (last.role === 'tool') return say('Noted.');
    if (last.content.map((p) => p.text).join('').startsWith('Remember')) {
      return { content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'add_memory', input: JSON.stringify({ content: 'Alice is allergic to peanuts' }) }], finishReason: { unified: 'tool-calls' }, usage, warnings: [] };
    }
    const context = prompt.filter((m) => m.role === 'system').map((m) => m.content).join('\n');
    return say(context.includes('peanuts') ? 'You are allergic to peanuts.' : 'I do not know.');
  },
});
const contextTokens = [];
const model = wrapLanguageModel({ model: llm, middleware: memoryContextMiddleware({ memory, namespace, budget: 300, onContext: (c) => contextTokens.push(c.report.tokens) }) });
const tools = memoryTools({ memory, namespace });
await generateText({ model, tools, stopWhen: stepCountIs(5), prompt: 'Remember that I am allergic to peanuts.' });
const answer = await generateText({ model, tools, stopWhen: stepCountIs(5), prompt: 'Am I allergic to anything?' });

const docs = await new ZeromemRetriever({ memory, namespace, k: 1 }).invoke('allergic peanuts');
const history = new ZeromemChatMessageHistory({ memory, namespace, sessionId: 'chat-1' });
await history.addUserMessage('Hi, I am Alice');
await history.addAIMessage('Hello Alice!');
const store = new ZeromemStore({ memory, namespace: { userId: 'alice', scope: 'langgraph' } });
await store.put(['memories', 'alice'], 'food', { text: 'likes ramen' });
const [item] = await store.search(['memories'], { query: 'ramen' });

console.log(
  JSON.stringify({
    answer: answer.text,
    llmCalls: llm.doGenerateCalls.length,
    contextTokens,
    retrieved: docs.map((d) => [d.pageContent, typeof d.metadata.score]),
    history: (await new ZeromemChatMessageHistory({ memory, namespace, sessionId: 'chat-1' }).getMessages()).map((m) => `${m.getType()}: ${m.text}`),
    store: item && { key: item.key, value: item.value, scored: item.score > 0 },
  }),
);
await memory.close();
