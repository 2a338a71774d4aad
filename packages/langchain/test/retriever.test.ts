import 'fake-indexeddb/auto';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { RunnablePassthrough, RunnableSequence } from '@langchain/core/runnables';
import { FakeChatModel } from '@langchain/core/utils/testing';
import { StringOutputParser } from '@langchain/core/output_parsers';
import { openMemory, type Memory } from '@zeromem/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ZeromemChatMessageHistory, ZeromemRetriever } from '../src/index.ts';

let memory: Memory;
const alice = { userId: 'alice' };

beforeEach(async () => {
  memory = await openMemory({ name: `lc-retriever-${crypto.randomUUID()}` });
  await memory.rememberMany([
    { namespace: alice, content: 'Alice is allergic to peanuts', tags: ['health'] },
    { namespace: alice, content: 'Alice prefers window seats' },
    { namespace: alice, content: 'Alice has a peanut-free kitchen at home' },
    { namespace: { userId: 'bob' }, content: 'Bob is allergic to peanuts too' },
  ]);
});
afterEach(async () => {
  await memory.close();
});

describe('ZeromemRetriever', () => {
  it('returns recall hits as documents with score and explain, from its namespace only', async () => {
    const retriever = new ZeromemRetriever({ memory, namespace: alice, k: 2 });
    const docs = await retriever.invoke('allergic to peanuts, kitchen at home');
    expect(docs.map((d) => d.pageContent).sort()).toEqual(['Alice has a peanut-free kitchen at home', 'Alice is allergic to peanuts']);
    const top = docs.find((d) => d.pageContent === 'Alice is allergic to peanuts');
    expect(top!.metadata).toMatchObject({ tags: ['health'], layer: 'long_term', source: 'user' });
    expect(docs[0]!.metadata.score).toBeGreaterThanOrEqual(docs[1]!.metadata.score);
    const { contributions } = top!.metadata.explain;
    expect(contributions.text + contributions.vector).toBeCloseTo(top!.metadata.score, 10);
    expect(top!.id).toBe(top!.metadata.id);
  });

  it('applies recall filters', async () => {
    const retriever = new ZeromemRetriever({ memory, namespace: alice, filters: { tags: { any: ['health'] } } });
    expect((await retriever.invoke('peanuts')).map((d) => d.pageContent)).toEqual(['Alice is allergic to peanuts']);
  });

  it('feeds a LangChain chain (retriever -> prompt -> fake chat model)', async () => {
    const retriever = new ZeromemRetriever({ memory, namespace: alice, k: 1 });
    const prompt = ChatPromptTemplate.fromMessages([
      ['system', 'Known about the user:\n{context}'],
      ['human', '{question}'],
    ]);
    const chain = RunnableSequence.from([
      { context: retriever.pipe((docs) => docs.map((d) => d.pageContent).join('\n')), question: new RunnablePassthrough() },
      prompt,
      new FakeChatModel({}), // echoes the messages it was sent
      new StringOutputParser(),
    ]);
    const answer = await chain.invoke('allergic to peanuts?');
    expect(answer).toContain('Known about the user:\nAlice is allergic to peanuts');
    expect(answer).not.toContain('Bob');
  });

  it('searches the long-term layers by default, not the chat turns that share the namespace, and drops zero-score hits', async () => {
    const history = new ZeromemChatMessageHistory({ memory, namespace: alice, sessionId: 'chat-1' });
    await history.addUserMessage('Can I eat satay? It has peanuts');
    const docs = await new ZeromemRetriever({ memory, namespace: alice }).invoke('Can I eat satay? It has peanuts');
    expect(docs.map((d) => d.pageContent)).not.toContain('Can I eat satay? It has peanuts');
    expect(docs[0]!.pageContent).toBe('Alice is allergic to peanuts');
    expect(docs.every((d) => d.metadata.score > 0)).toBe(true);
    expect(docs.map((d) => d.pageContent)).not.toContain('Alice prefers window seats'); // no word in common: score 0

    const withTurns = await new ZeromemRetriever({ memory, namespace: alice, layers: ['session', 'long_term'] }).invoke('satay');
    expect(withTurns.map((d) => d.pageContent)).toEqual(['Can I eat satay? It has peanuts']);
  });

  it('leaves out hits below minScore', async () => {
    const all = await new ZeromemRetriever({ memory, namespace: alice }).invoke('allergic to peanuts, kitchen at home');
    expect(all.length).toBe(2);
    const cut = (all[0]!.metadata.score + all[1]!.metadata.score) / 2;
    const best = await new ZeromemRetriever({ memory, namespace: alice, minScore: cut }).invoke('allergic to peanuts, kitchen at home');
    expect(best.map((d) => d.pageContent)).toEqual([all[0]!.pageContent]);
  });
});
