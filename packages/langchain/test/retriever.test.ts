import 'fake-indexeddb/auto';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { RunnablePassthrough, RunnableSequence } from '@langchain/core/runnables';
import { FakeChatModel } from '@langchain/core/utils/testing';
import { StringOutputParser } from '@langchain/core/output_parsers';
import { openMemory, type Memory } from '@zeromem/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ZeromemRetriever } from '../src/index.ts';

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
});
