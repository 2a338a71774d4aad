/**
 * The catalog's tools in LangChain, run the way an agent runs them: a LangGraph ToolNode
 * executes the tool calls of an AIMessage and answers ToolMessages. Here for the keyed
 * facts (set_fact, get_profile); the other tools' contract is test/integrations/tool-contract.test.ts.
 */
import 'fake-indexeddb/auto';
import { AIMessage, type ToolMessage } from '@langchain/core/messages';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { openMemory, type Memory } from '@zeromem/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryTools } from '../src/index.ts';

let memory: Memory;
const alice = { userId: 'alice' };

beforeEach(async () => {
  memory = await openMemory({ name: `lc-tools-${crypto.randomUUID()}` });
});
afterEach(async () => {
  await memory.close();
});

/** Runs one AI turn's tool calls through a ToolNode; the answers, parsed, in call order. */
async function runCalls(calls: Array<{ name: string; args: Record<string, unknown> }>): Promise<Array<{ status: string | undefined; value: any }>> {
  const node = new ToolNode(memoryTools({ memory, namespace: alice }), { handleToolErrors: true });
  const message = new AIMessage({ content: '', tool_calls: calls.map((call, i) => ({ ...call, id: `call-${i}`, type: 'tool_call' as const })) });
  const { messages } = (await node.invoke({ messages: [message] })) as { messages: ToolMessage[] };
  return messages.map((answer) => ({ status: answer.status, value: answer.status === 'error' ? String(answer.content) : JSON.parse(String(answer.content)) }));
}

describe('set_fact and get_profile through a LangGraph ToolNode', () => {
  it('a fact set again under its key replaces the earlier one; the profile holds the current one', async () => {
    const [phone] = await runCalls([{ name: 'set_fact', args: { key: 'contact.channel', content: 'Alice prefers phone calls.', validFrom: '2026-03-03' } }]);
    const [email] = await runCalls([{ name: 'set_fact', args: { key: 'contact.channel', content: 'Alice prefers e-mail, no more calls.', validFrom: '2026-03-04' } }]);
    // The calls of one message run at once: the two reads in a turn after the write.
    const [profile, then] = await runCalls([
      { name: 'get_profile', args: {} },
      { name: 'get_profile', args: { asOf: '2026-03-03T12:00:00Z' } },
    ]);
    expect(email!.value).toMatchObject({ closed: [phone!.value.id], memory: { key: 'contact.channel', content: 'Alice prefers e-mail, no more calls.' } });
    expect(profile!.value).toEqual({ facts: [{ key: 'contact.channel', content: 'Alice prefers e-mail, no more calls.', id: email!.value.id, validFrom: '2026-03-04T00:00:00.000Z' }] });
    expect(then!.value.facts.map((fact: { content: string }) => fact.content)).toEqual(['Alice prefers phone calls.']);
  });

  it('a bad key comes back as a tool error and writes nothing', async () => {
    const [bad] = await runCalls([{ name: 'set_fact', args: { key: 'Contact Channel!', content: 'planted' } }]);
    expect(bad!.status).toBe('error');
    expect(bad!.value).toMatch(/key/);
    const [profile] = await runCalls([{ name: 'get_profile', args: {} }]);
    expect(profile!.value).toEqual({ facts: [] });
  });
});
