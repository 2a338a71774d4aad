import 'fake-indexeddb/auto';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { ChatPromptTemplate, MessagesPlaceholder } from '@langchain/core/prompts';
import { RunnableWithMessageHistory } from '@langchain/core/runnables';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { openMemory, type Memory } from '@zeromem/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ZeromemChatMessageHistory } from '../src/index.ts';

let memory: Memory;
const alice = { userId: 'alice' };

beforeEach(async () => {
  memory = await openMemory({ name: `lc-history-${crypto.randomUUID()}` });
});
afterEach(async () => {
  await memory.close();
});

describe('ZeromemChatMessageHistory', () => {
  it('keeps a RunnableWithMessageHistory conversation, readable by a new history of the same session', async () => {
    const prompt = ChatPromptTemplate.fromMessages([new MessagesPlaceholder('history'), ['human', '{input}']]);
    const model = new FakeListChatModel({ responses: ['Hi Alice!', 'You said your name is Alice.'] });
    const chain = new RunnableWithMessageHistory({
      runnable: prompt.pipe(model),
      getMessageHistory: (sessionId: string) => new ZeromemChatMessageHistory({ memory, namespace: alice, sessionId }),
      inputMessagesKey: 'input',
      historyMessagesKey: 'history',
    });
    const config = { configurable: { sessionId: 'chat-1' } };
    await chain.invoke({ input: 'I am Alice' }, config);
    await chain.invoke({ input: 'What is my name?' }, config);

    const again = new ZeromemChatMessageHistory({ memory, namespace: alice, sessionId: 'chat-1' });
    const messages = await again.getMessages();
    expect(messages.map((m) => [m.getType(), m.text])).toEqual([
      ['human', 'I am Alice'],
      ['ai', 'Hi Alice!'],
      ['human', 'What is my name?'],
      ['ai', 'You said your name is Alice.'],
    ]);
    // The turns are session memories: what buildContext's session layer is made of.
    const context = await memory.buildContext({ namespace: alice, sessionId: 'chat-1' });
    expect(context.text).toContain('What is my name?');
    // Another conversation starts empty.
    expect(await new ZeromemChatMessageHistory({ memory, namespace: alice, sessionId: 'chat-2' }).getMessages()).toEqual([]);
  });

  it('stores system and tool messages by role, and clear() forgets only this conversation', async () => {
    const history = new ZeromemChatMessageHistory({ memory, namespace: alice, sessionId: 's1', ttl: '7d' });
    const other = new ZeromemChatMessageHistory({ memory, namespace: alice, sessionId: 's2' });
    await history.addMessages([new SystemMessage('Be brief.'), new HumanMessage('weather?'), new AIMessage({ content: '', tool_calls: [{ id: 't1', name: 'weather', args: {} }] }), new ToolMessage({ content: 'sunny', tool_call_id: 't1' })]);
    await other.addUserMessage('hello');
    const messages = await history.getMessages();
    expect(messages.map((m) => m.getType())).toEqual(['system', 'human', 'tool']); // the empty tool-calling AI message has no text to keep
    expect((messages[2] as ToolMessage).tool_call_id).toMatch(/^zeromem:/);
    await history.clear();
    expect(await history.getMessages()).toEqual([]);
    expect((await other.getMessages()).map((m) => m.text)).toEqual(['hello']);
  });
});
