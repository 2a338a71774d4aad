/**
 * Claude's memory tool kept by zeromem, through the real hosts: the AI SDK's Anthropic
 * provider (`generateText` with `anthropic.tools.memory_20250818`) and LangChain's
 * `ChatAnthropic` (`bindTools` and the tool-call loop) send their real requests to a
 * `fetch` that answers with Messages API responses (messages-api.ts, fixtures/claude-memory-session.json:
 * `tool_use` blocks of each of the six commands). No network, no key. Each command must
 * reach zeromem (the file is a memory of the bound namespace, changed as the command
 * says) and the next request must carry zeromem's answer as the `tool_result`.
 */
import 'fake-indexeddb/auto';
import { createAnthropic } from '@ai-sdk/anthropic';
import { ChatAnthropic, tools as anthropicTools } from '@langchain/anthropic';
import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { claudeMemory as aiClaudeMemory } from '@zeromem/ai';
import { openMemory, type Memory } from '@zeromem/core';
import { claudeMemory as langchainClaudeMemory } from '@zeromem/langchain';
import { createMemoryTool, type MemoryCommand } from '@zeromem/tools';
import { generateText, stepCountIs } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memorySession as session, messagesApi, resultText, toolResults, toolUsesOf } from './messages-api.ts';

const toolUses = toolUsesOf(session);
const alice = { userId: 'alice' };

/** What zeromem answers to the session's commands, one after another, through the plain handler on a store of its own. */
async function plainAnswers(): Promise<string[]> {
  const reference = await openMemory({ name: `claude-memory-reference-${crypto.randomUUID()}` });
  try {
    const tool = createMemoryTool(reference, { namespace: alice });
    const answers: string[] = [];
    for (const use of toolUses) answers.push(await tool.execute(use.input as MemoryCommand));
    return answers;
  } finally {
    await reference.close();
  }
}

/** The hosts under test: each runs the session's conversation with zeromem's adapter as the memory tool, through `fetch`. */
const hosts = {
  'the AI SDK (generateText with anthropic.tools.memory_20250818)': async (memory: Memory, fetch: typeof globalThis.fetch) => {
    const anthropic = createAnthropic({ apiKey: 'sk-ant-test-not-a-key', fetch });
    const result = await generateText({
      model: anthropic('claude-sonnet-4-5'),
      tools: { memory: anthropic.tools.memory_20250818({ execute: aiClaudeMemory({ memory, namespace: alice }) }) },
      stopWhen: stepCountIs(20),
      prompt: session.prompt,
    });
    return result.text;
  },
  "LangChain (ChatAnthropic.bindTools with @langchain/anthropic's memory_20250818, the tool-call loop)": async (memory: Memory, fetch: typeof globalThis.fetch) => {
    const memoryTool = anthropicTools.memory_20250818({ execute: langchainClaudeMemory({ memory, namespace: alice }) });
    const model = new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: 'sk-ant-test-not-a-key', maxRetries: 0, clientOptions: { fetch } }).bindTools([memoryTool]);
    const messages: BaseMessage[] = [new HumanMessage(session.prompt)];
    for (let turn = 0; turn < 20; turn++) {
      const reply = await model.invoke(messages);
      messages.push(reply);
      if (!reply.tool_calls?.length) return reply.text;
      for (const call of reply.tool_calls) messages.push(await memoryTool.invoke({ ...call, type: 'tool_call' as const }));
    }
    throw new Error('the loop did not end');
  },
};

describe.each(Object.entries(hosts))('Claude\'s memory tool through %s', (_name, run) => {
  let memory: Memory;
  beforeEach(async () => {
    memory = await openMemory({ name: `claude-memory-${crypto.randomUUID()}` });
  });
  afterEach(async () => {
    await memory.close();
  });

  it('carries out each of the six commands in zeromem and sends zeromem\'s answer back as the tool_result', async () => {
    expect(new Set(toolUses.map((use) => use.input.command))).toEqual(new Set(['view', 'create', 'str_replace', 'insert', 'delete', 'rename']));
    const api = messagesApi(session);
    const text = await run(memory, api.fetch);
    expect(text).toBe('Noted: a window seat, vegetarian meals, and Lisbon as your home airport.');

    // One request per response; each declares the memory tool with its beta header.
    expect(api.requests).toHaveLength(session.responses.length);
    for (const request of api.requests) {
      expect(request.headers.get('anthropic-beta')?.split(',').map((beta) => beta.trim())).toContain('context-management-2025-06-27');
      expect(request.headers.get('x-api-key')).toBe('sk-ant-test-not-a-key');
      expect(request.body.tools).toEqual([expect.objectContaining({ type: 'memory_20250818', name: 'memory' })]);
    }

    // Each tool_use is answered in the next request by a tool_result holding what zeromem says to that command.
    const expected = await plainAnswers();
    toolUses.forEach((use, i) => {
      const results = toolResults(api.requests[i + 1]!);
      expect(results.map((block) => block.tool_use_id)).toEqual([use.id]);
      expect(results[0]!.is_error ?? false, `${use.input.command} answered as an error: ${resultText(results[0]!)}`).toBe(false);
      expect(resultText(results[0]!), `the answer to ${JSON.stringify(use.input)}`).toBe(expected[i]);
    });
    // The ranged view saw lines 1-2 only (LangChain's schema drops view_range; the adapter reads it from the tool call).
    const ranged = resultText(toolResults(api.requests[toolUses.findIndex((use) => 'view_range' in use.input) + 1]!)[0]!);
    expect(ranged).toContain('# Travel preferences');
    expect(ranged).toContain('- Home airport: LIS');
    expect(ranged).not.toContain('- Seat: window');

    // In the store: the file is a memory of Alice's namespace, one version per edit (the first moved by the rename); the deleted and renamed-away paths end.
    const kept = createMemoryTool(memory, { namespace: alice });
    expect(await kept.files()).toEqual([{ path: '/memories/preferences.md', bytes: expect.any(Number) }]);
    expect((await kept.history('/memories/preferences.md')).map((version) => version.text)).toEqual([
      '# Travel preferences\n- Seat: window\n- Meals: no preference\n',
      '# Travel preferences\n- Seat: window\n- Meals: vegetarian\n',
      '# Travel preferences\n- Home airport: LIS\n- Seat: window\n- Meals: vegetarian\n',
    ]);
    expect(await kept.history('/memories/travel/preferences.md')).toMatchObject([{ ended: 'rename', renamedTo: '/memories/preferences.md' }]);
    expect(await kept.history('/memories/scratch.md')).toMatchObject([{ text: 'Lisbon flight: ask about a window seat\n', ended: 'delete' }]);
    // Found by recall like any memory of the namespace.
    const { hits } = await memory.recall(alice, 'vegetarian meals');
    expect(hits[0]?.record.metadata.path).toBe('/memories/preferences.md');
  });
});
