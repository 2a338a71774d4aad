import 'fake-indexeddb/auto';
import { openMemory, type Memory } from '@zeromem/core';
import { generateText, stepCountIs, type ModelMessage, type ToolApprovalResponse } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryTools } from '../src/index.ts';
import { scriptedModel, toolOutputs } from './scripted-model.ts';

let memory: Memory;
const alice = { userId: 'alice' };
const bob = { userId: 'bob' };

beforeEach(async () => {
  memory = await openMemory({ name: `ai-tools-${crypto.randomUUID()}` });
});
afterEach(async () => {
  await memory.close();
});

describe('memoryTools in an AI SDK tool loop', () => {
  it('remembers a fact in one conversation and recalls it in a later one', async () => {
    const tools = memoryTools({ memory, namespace: alice });
    const first = scriptedModel((_prompt, step) => (step === 0 ? { tool: 'add_memory', input: { content: 'Alice is allergic to peanuts', tags: ['health'] } } : { text: 'Noted.' }));
    const remembered = await generateText({ model: first, tools, stopWhen: stepCountIs(5), prompt: 'Remember: I am allergic to peanuts.' });
    expect(remembered.text).toBe('Noted.');
    expect(first.doGenerateCalls).toHaveLength(2);

    const later = scriptedModel((prompt, step) => {
      if (step === 0) return { tool: 'search_memories', input: { query: 'what is Alice allergic to' } };
      const [found] = toolOutputs(prompt);
      const results = (found!.output as { value: { results: Array<{ content: string; score: number }> } }).value.results;
      return { text: `From memory: ${results[0]!.content}` };
    });
    const answer = await generateText({ model: later, tools, stopWhen: stepCountIs(5), prompt: 'Can I eat satay?' });
    expect(answer.text).toBe('From memory: Alice is allergic to peanuts');
    const search = answer.steps[0]!.toolResults[0]!;
    expect(search.toolName).toBe('search_memories');
    expect((search.output as { results: Array<{ score: number; tags: string[] }> }).results[0]).toMatchObject({ tags: ['health'] });
    expect((search.output as { results: Array<{ score: number }> }).results[0]!.score).toBeGreaterThan(0);
  });

  it('get, list and update work by id within the bound namespace', async () => {
    const { id } = await memory.remember({ namespace: alice, content: 'Alice lives in Lisbon' });
    const tools = memoryTools({ memory, namespace: alice });
    const model = scriptedModel((_p, step) =>
      [
        { tool: 'get_memory', input: { id } },
        { tool: 'update_memory', input: { id, content: 'Alice lives in Porto' } },
        { tool: 'list_memories', input: { limit: 10 } },
        { text: 'done' },
      ][step]!,
    );
    const result = await generateText({ model, tools, stopWhen: stepCountIs(6), prompt: 'I moved to Porto.' });
    const outputs = result.steps.flatMap((step) => step.toolResults.map((r) => r.output as Record<string, unknown>));
    expect(outputs[0]).toMatchObject({ memory: { id, content: 'Alice lives in Lisbon', version: 1 } });
    expect(outputs[1]).toMatchObject({ memory: { id, content: 'Alice lives in Porto', version: 2 } });
    expect(outputs[2]).toMatchObject({ memories: [{ id, content: 'Alice lives in Porto' }], nextCursor: null });
  });

  it('forgetting waits for approval by default, and runs once approved', async () => {
    const { id } = await memory.remember({ namespace: alice, content: 'Alice drives a red car' });
    const tools = memoryTools({ memory, namespace: alice });
    const model = scriptedModel((prompt) => (toolOutputs(prompt).length ? { text: 'Forgotten.' } : { tool: 'delete_memory', input: { id } }));
    const messages: ModelMessage[] = [{ role: 'user', content: 'Forget my car.' }];
    const asked = await generateText({ model, tools, stopWhen: stepCountIs(5), messages });
    const requests = asked.content.filter((part) => part.type === 'tool-approval-request');
    expect(requests).toHaveLength(1);
    expect(await memory.get(alice, id)).toBeDefined(); // nothing ran yet

    messages.push(...asked.response.messages);
    const approvals: ToolApprovalResponse[] = requests.map((part) => ({ type: 'tool-approval-response', approvalId: part.approvalId, approved: true }));
    messages.push({ role: 'tool', content: approvals });
    const done = await generateText({ model, tools, stopWhen: stepCountIs(5), messages });
    expect(done.text).toBe('Forgotten.');
    expect(await memory.get(alice, id)).toBeUndefined();
  });

  it('a denied forget deletes nothing', async () => {
    const { id } = await memory.remember({ namespace: alice, content: 'Alice drives a red car' });
    const tools = memoryTools({ memory, namespace: alice });
    const model = scriptedModel((prompt) => (toolOutputs(prompt).length ? { text: 'Kept.' } : { tool: 'delete_all_memories', input: {} }));
    const messages: ModelMessage[] = [{ role: 'user', content: 'Forget everything.' }];
    const asked = await generateText({ model, tools, stopWhen: stepCountIs(5), messages });
    messages.push(...asked.response.messages);
    const denials: ToolApprovalResponse[] = asked.content.flatMap((part) => (part.type === 'tool-approval-request' ? [{ type: 'tool-approval-response' as const, approvalId: part.approvalId, approved: false }] : []));
    expect(denials).toHaveLength(1);
    messages.push({ role: 'tool', content: denials });
    await generateText({ model, tools, stopWhen: stepCountIs(5), messages });
    expect(await memory.get(alice, id)).toBeDefined();
  });

  it('a model that tries to reach another namespace cannot read, change or delete anything there', async () => {
    const secret = await memory.remember({ namespace: bob, content: "Bob's door code is 4711", tags: ['secret'] });
    await memory.remember({ namespace: alice, content: 'Alice likes jazz' });
    const tools = memoryTools({ memory, namespace: alice, forgetNeedsApproval: false });
    const attempts = [
      { tool: 'get_memory', input: { id: secret.id } },
      { tool: 'update_memory', input: { id: secret.id, content: 'hacked' } },
      { tool: 'delete_memory', input: { id: secret.id } },
      { tool: 'search_memories', input: { query: 'Bob door code 4711' } },
      { tool: 'search_memories', input: { query: 'door code', namespace: bob } },
      { tool: 'search_memories', input: { query: 'door code', userId: 'bob' } },
      { tool: 'add_memory', input: { content: 'planted', namespace: bob } },
      { tool: 'list_memories', input: { userId: 'bob' } },
      { tool: 'list_memories', input: { limit: 100 } },
      { tool: 'delete_all_memories', input: {} },
    ];
    const model = scriptedModel((_p, step) => attempts[step] ?? { text: 'gave up' });
    const result = await generateText({ model, tools, stopWhen: stepCountIs(attempts.length + 1), prompt: "Tell me Bob's door code." });

    // Nothing of Bob's reached the model, in any tool result of any prompt it was sent.
    const seen = model.doGenerateCalls.map((call) => JSON.stringify(toolOutputs(call.prompt))).join('\n');
    expect(seen).toContain('Alice likes jazz'); // the results are there...
    expect(seen).not.toContain("Bob's door code"); // ...and hold nothing of Bob's
    // Bob's memory is untouched; nothing was planted in his namespace.
    expect(await memory.get(bob, secret.id)).toMatchObject({ content: "Bob's door code is 4711", version: 1 });
    expect(await memory.count(bob)).toBe(1);
    // What the model got back: errors for the strict schemas and unknown ids, Alice's data only otherwise.
    const errors = result.steps.flatMap((step) => step.content.filter((part) => part.type === 'tool-error'));
    expect(errors.length).toBe(6); // get, update (not found), namespace/userId fields (4 strict-schema refusals)
    const deleted = result.steps.flatMap((step) => step.toolResults).find((r) => r.toolName === 'delete_memory');
    expect(deleted?.output).toEqual({ id: secret.id, deleted: false });
    // delete_all_memories emptied only Alice's namespace.
    expect(await memory.count(alice)).toBe(0);
  });

  it('set_fact replaces a fact by key: the model reads only the current one, the earlier one stays as history', async () => {
    const tools = memoryTools({ memory, namespace: alice });
    const script = [
      { tool: 'set_fact', input: { key: 'contact.channel', content: 'Alice prefers phone calls.', validFrom: '2026-03-03T09:00:00.000Z' } },
      { tool: 'set_fact', input: { key: 'contact.channel', content: 'Alice prefers e-mail, no more calls.', validFrom: '2026-03-04T09:00:00.000Z' } },
      { tool: 'set_fact', input: { key: 'contact.channel', content: 'Alice prefers e-mail, no more calls.', validFrom: '2026-03-04T09:00:00.000Z' } },
      { tool: 'set_fact', input: { key: 'Contact Channel', content: 'planted' } },
      { tool: 'get_profile', input: {} },
      { tool: 'get_profile', input: { asOf: '2026-03-03T12:00:00.000Z' } },
      { tool: 'search_memories', input: { query: 'how does Alice like to be contacted, phone calls or e-mail' } },
      { text: 'done' },
    ];
    const model = scriptedModel((_p, step) => script[step]!);
    const result = await generateText({ model, tools, stopWhen: stepCountIs(script.length + 1), prompt: 'From now on, e-mail me instead of calling.' });
    const outputs = result.steps.flatMap((step) => step.toolResults.map((r) => r.output as Record<string, any>));
    const [phone, email, again, profile, before, found] = outputs;
    expect(phone).toMatchObject({ closed: [], memory: { key: 'contact.channel', content: 'Alice prefers phone calls.', validFrom: '2026-03-03T09:00:00.000Z' } });
    expect(email).toMatchObject({ closed: [phone!.id], memory: { key: 'contact.channel', validFrom: '2026-03-04T09:00:00.000Z' } });
    expect(again).toMatchObject({ id: email!.id, closed: [] }); // the same fact again changes nothing
    expect(profile).toEqual({ facts: [{ key: 'contact.channel', content: 'Alice prefers e-mail, no more calls.', id: email!.id, validFrom: '2026-03-04T09:00:00.000Z' }] });
    expect(before).toEqual({ facts: [{ key: 'contact.channel', content: 'Alice prefers phone calls.', id: phone!.id, validFrom: '2026-03-03T09:00:00.000Z' }] });
    expect(found!.results.map((hit: { content: string }) => hit.content)).toEqual(['Alice prefers e-mail, no more calls.']);
    // The bad key was refused by the schema, nothing written; the phone fact is closed, not gone.
    expect(result.steps.flatMap((step) => step.content.filter((part) => part.type === 'tool-error'))).toHaveLength(1);
    expect(await memory.get(alice, phone!.id)).toMatchObject({ validUntil: Date.parse('2026-03-04T09:00:00.000Z'), closedBy: email!.id });
    expect(await memory.count(alice)).toBe(1);
    expect(await memory.count(alice, { includeClosed: true })).toBe(2);
  });

  it('refuses to be built without a namespace', () => {
    expect(() => memoryTools({ memory, namespace: undefined as never })).toThrow(expect.objectContaining({ code: 'NAMESPACE_REQUIRED' }));
  });
});
