import 'fake-indexeddb/auto';
import { openMemory, type BuiltContext, type Memory } from '@zeromem/core';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryContextMiddleware, memoryTools } from '../src/index.ts';
import { scriptedModel, toolOutputs, type Reply } from './scripted-model.ts';

let memory: Memory;
const alice = { userId: 'alice' };

beforeEach(async () => {
  memory = await openMemory({ name: `ai-context-${crypto.randomUUID()}` });
  await memory.rememberMany([
    { namespace: alice, content: 'Alice is allergic to peanuts' },
    { namespace: alice, content: 'Alice prefers window seats on long flights' },
    { namespace: alice, content: 'Alice works as a marine biologist in Lisbon' },
    { namespace: { userId: 'bob' }, content: 'Bob is allergic to shellfish' },
  ]);
});
afterEach(async () => {
  vi.unstubAllGlobals();
  await memory.close();
});

/** A two-step loop: search memories, then answer. */
const script = (prompt: Parameters<Parameters<typeof scriptedModel>[0]>[0], step: number): Reply =>
  step === 0 ? { tool: 'search_memories', input: { query: 'allergies' } } : { text: `ok after ${toolOutputs(prompt).length} tool result(s)` };

describe('memoryContextMiddleware', () => {
  it('puts the namespace context after the caller instructions in every call of a loop', async () => {
    const inner = scriptedModel(script);
    const contexts: BuiltContext[] = [];
    const model = wrapLanguageModel({ model: inner, middleware: memoryContextMiddleware({ memory, namespace: alice, budget: 300, onContext: (c) => contexts.push(c) }) });
    await generateText({ model, system: 'You are a travel assistant.', tools: memoryTools({ memory, namespace: alice }), stopWhen: stepCountIs(3), prompt: 'Any food I should avoid on the plane with peanuts?' });

    expect(inner.doGenerateCalls).toHaveLength(2);
    expect(contexts).toHaveLength(2);
    for (const [i, call] of inner.doGenerateCalls.entries()) {
      expect(call.prompt[0]).toEqual({ role: 'system', content: 'You are a travel assistant.' });
      expect(call.prompt[1]).toEqual({ role: 'system', content: contexts[i]!.text });
    }
    expect(contexts[0]!.text).toContain('Alice is allergic to peanuts');
    expect(contexts[0]!.text).not.toContain('Bob');
    expect(contexts[0]!.report.tokens).toBeLessThanOrEqual(300);
  });

  it('adds nothing when the namespace has no memory', async () => {
    const inner = scriptedModel(() => ({ text: 'hi' }));
    const onContext = vi.fn();
    const model = wrapLanguageModel({ model: inner, middleware: memoryContextMiddleware({ memory, namespace: { userId: 'nobody' }, onContext }) });
    await generateText({ model, prompt: 'hello' });
    expect(inner.doGenerateCalls[0]!.prompt).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hello' }] }]);
    expect(onContext).not.toHaveBeenCalled();
  });
});

describe('zero tokens spent by memory itself', () => {
  it('counts LLM calls and prompt tokens: memory adds no call, and no token beyond the context it reports', async () => {
    // Any network access (an LLM, a remote embedder) would throw here.
    const network = vi.fn(() => {
      throw new Error('network access');
    });
    vi.stubGlobal('fetch', network);
    const tokenizer = await memory.tokenizer();
    const system = 'You are a travel assistant.';
    const prompt = 'Any food I should avoid on the plane with peanuts?';
    const tools = memoryTools({ memory, namespace: alice });

    const plain = scriptedModel(script);
    await generateText({ model: plain, system, tools, stopWhen: stepCountIs(3), prompt });

    const inner = scriptedModel(script);
    const contexts: BuiltContext[] = [];
    const model = wrapLanguageModel({ model: inner, middleware: memoryContextMiddleware({ memory, namespace: alice, budget: 300, onContext: (c) => contexts.push(c) }) });
    const result = await generateText({ model, system, tools, stopWhen: stepCountIs(3), prompt });

    // LLM calls: the agent's own steps, the same with and without memory's context.
    expect(inner.doGenerateCalls).toHaveLength(result.steps.length);
    expect(inner.doGenerateCalls).toHaveLength(plain.doGenerateCalls.length);
    expect(network).not.toHaveBeenCalled();
    // Prompt tokens: each call's prompt is the plain one plus exactly the reported context.
    let injected = 0;
    for (const [i, call] of inner.doGenerateCalls.entries()) {
      const withoutContext = call.prompt.filter((_m, at) => at !== 1);
      expect(withoutContext).toEqual(plain.doGenerateCalls[i]!.prompt);
      const added = call.prompt[1]!.content as string;
      expect(tokenizer.count(added)).toBe(contexts[i]!.report.textTokens);
      injected += contexts[i]!.report.textTokens;
    }
    const toolDefinitionTokens = tokenizer.count(JSON.stringify(inner.doGenerateCalls[0]!.tools));
    console.log(
      `[zero-token] LLM calls by memory: 0 (agent steps: ${inner.doGenerateCalls.length}); network calls: ${network.mock.calls.length}; ` +
        `context tokens injected: ${injected} over ${contexts.length} calls (${contexts.map((c) => c.report.textTokens).join(' + ')}, ${tokenizer.id}); ` +
        `tool definitions the caller chose to send: ${toolDefinitionTokens} tokens per call`,
    );
  });
});
