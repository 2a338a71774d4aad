/**
 * The agents' logic on the real SDK (fake-indexeddb in Node): a turn stores the user's
 * words and the reply, builds the prompt within budget from the user's facts, carries out
 * the memory tool lines, and answers offline (labelled) without an LLM.
 */
import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countChatTokens, createTokenizer, openMemory, type ChatMessage, type Memory } from '@zeromem/core';
import { AppError } from '@zeromem/app-shared/app-error';
import { openAgentSession, runTurn } from '../../src/renderer/agent-turn.ts';
import type { LlmClient } from '../../src/renderer/llm-client.ts';
import { parseToolCalls, withoutToolLines } from '../../src/renderer/memory-tools.ts';
import { OFFLINE_HELP, OFFLINE_LABEL } from '../../src/renderer/offline-reply.ts';
import { agentById, agentNamespace, seedStory, seedSummary, storySeed, userNamespace } from '../../src/renderer/story.ts';

/** An LlmClient whose replies the test scripts; it records the prompts (the LLM is outside the product). */
function scriptedLlm(reply: (messages: ChatMessage[]) => string): LlmClient & { prompts: ChatMessage[][] } {
  const prompts: ChatMessage[][] = [];
  return {
    platform: 'web',
    prompts,
    status: async () => ({ settings: { baseUrl: 'http://127.0.0.1:1/v1', model: 'm' }, hasApiKey: false, keyStorage: 'browser-session' }),
    save: async () => {
      throw new AppError('INVALID_INPUT', 'not in this test');
    },
    chat: async (messages, onDelta) => {
      prompts.push(messages);
      const text = reply(messages);
      onDelta(text);
      return text;
    },
  };
}

let memory: Memory;
let n = 0;
beforeEach(async () => {
  memory = await openMemory({ name: `agent-turn-${n++}` });
});
afterEach(async () => {
  await memory.close();
});

describe('memory tool lines', () => {
  it('are parsed from a reply, in order, and taken out of what the user reads', () => {
    const reply = 'Sure.\nREMEMBER: The user lives in Lyon.\n - note: Call back Friday\nforget:  old address \nREMEMBER:   \nDone.';
    expect(parseToolCalls(reply)).toEqual([
      { tool: 'remember', argument: 'The user lives in Lyon.' },
      { tool: 'note', argument: 'Call back Friday' },
      { tool: 'forget', argument: 'old address' },
    ]);
    expect(withoutToolLines(reply)).toBe('Sure.\nREMEMBER:   \nDone.');
  });
});

describe('an agent turn', () => {
  it('stores both sides, sends a prompt within budget holding the user facts, and runs the tools', async () => {
    await seedStory(memory);
    const agent = agentById('marketing');
    const llm = scriptedLlm(() => 'Call on Saturday.\nREMEMBER: The user wants offers by phone only.\nNOTE: Spring offer drafted.\nFORGET: black phone case');
    const session = openAgentSession(memory, agent, 'conv-1');
    const turn = await runTurn({ memory, session, agent, llm, online: true, text: 'How should we contact this user?', seq: 1 });
    const prompt = llm.prompts[0]!;
    expect(prompt).toEqual(turn.prompt);
    // Only the current way to reach the user (the phone preference was replaced on day three), first, from the user's profile.
    expect(prompt[0]!.content).toContain('- contact.channel: The user prefers e-mail; no phone calls any more. (since');
    expect(turn.context.report.included.filter((item) => item.layer === 'profile').map((item) => item.id)).toEqual(['channel-email']);
    expect(prompt[0]!.content).not.toContain('prefers phone calls');
    expect(prompt[0]!.content).not.toContain('Checked warranty'); // after-sales' private note
    expect(prompt.at(-1)).toEqual({ role: 'user', content: 'How should we contact this user?' });
    expect(countChatTokens(await createTokenizer(), prompt)).toBeLessThanOrEqual(agent.budget);
    expect(turn.reply).toBe('Call on Saturday.');
    expect(turn.tools.map((t) => [t.tool, t.ok])).toEqual([['remember', true], ['note', true], ['forget', true]]);
    const user = (await memory.list(userNamespace(), { limit: 100 })).items.map((r) => r.content);
    expect(user).toContain('The user wants offers by phone only.');
    expect(user).not.toContain('The user prefers a black phone case.');
    const own = (await memory.list(agentNamespace('marketing'), { limit: 100 })).items;
    expect(own.map((r) => [r.layer, r.content]).sort()).toEqual([
      ['knowledge', 'Spring offer drafted.'],
      ['session', 'Call on Saturday.'],
      ['session', 'How should we contact this user?'],
    ]);
  });

  it("the marketing agent's prompt holds every relevant fact while its budget has room: a full layer borrows what the others left unused", async () => {
    // Once left out: "The user opted out of SMS marketing" was dropped because the long-term
    // layer's 8 items were full while the prompt used 246 of its 600 tokens.
    await seedStory(memory);
    const agent = agentById('marketing');
    const llm = scriptedLlm(() => 'Noted.');
    const session = openAgentSession(memory, agent, 'conv-sms');
    const turn = await runTurn({ memory, session, agent, llm, online: true, text: 'How and when should we contact this user about a spring offer?', seq: 1 });
    const { report } = turn.context;
    expect(llm.prompts[0]![0]!.content).toContain('The user opted out of SMS marketing');
    expect(report.tokens).toBeLessThanOrEqual(agent.budget);
    // Nothing is left out for a layer's quota while the budget has room.
    for (const d of report.dropped) expect(d.reason).not.toBe('quota');
  });

  it('a FORGET that matches nothing forgets nothing', async () => {
    await seedStory(memory);
    const before = await memory.count(userNamespace());
    const agent = agentById('after-sales');
    const turn = await runTurn({ memory, session: openAgentSession(memory, agent, 'c'), agent, llm: scriptedLlm(() => 'FORGET: zebra xylophone'), online: true, text: 'hi', seq: 1 });
    expect(turn.tools[0]).toMatchObject({ tool: 'forget', ok: false });
    expect(await memory.count(userNamespace())).toBe(before);
  });

  it('offline, answers with the recalled memories under a plain label and calls no LLM', async () => {
    await seedStory(memory);
    const agent = agentById('marketing');
    const llm = scriptedLlm(() => 'never');
    const turn = await runTurn({ memory, session: openAgentSession(memory, agent, 'c'), agent, llm, online: false, text: 'How do we reach the user by phone?', seq: 1 });
    expect(llm.prompts).toHaveLength(0);
    expect(turn.offline).toBe(true);
    expect(turn.reply.startsWith(OFFLINE_LABEL)).toBe(true);
    expect(turn.reply).toContain('- The user prefers e-mail; no phone calls any more.');
    expect(turn.reply).not.toContain('prefers phone calls'); // replaced on day three
    expect(turn.tools).toEqual([]);
    expect(turn.prompt[0]!.role).toBe('system');
  });

  it('a failing LLM falls back to the offline reply and says why', async () => {
    const agent = agentById('after-sales');
    const llm = scriptedLlm(() => {
      throw new AppError('LLM_UNREACHABLE', 'Could not reach http://127.0.0.1:1/v1');
    });
    const turn = await runTurn({ memory, session: openAgentSession(memory, agent, 'c'), agent, llm, online: true, text: 'hello', seq: 1 });
    expect(turn.offline).toBe(true);
    expect(turn.error).toContain('Could not reach');
    expect(turn.reply).toContain(OFFLINE_LABEL);
  });

  it('seeding twice writes nothing the second time', async () => {
    expect(await seedStory(memory)).toEqual({ written: storySeed().length, shared: storySeed().length - 1, private: 1, replaced: 1 });
    expect(await seedStory(memory)).toEqual({ written: 0, shared: 0, private: 0, replaced: 0 });
    expect((await memory.list(userNamespace(), { key: 'contact.channel', includeClosed: true })).items).toHaveLength(2);
  });

  it('says how many seeded memories are shared facts and which one is private', () => {
    expect(seedSummary({ written: 18, shared: 17, private: 1, replaced: 1 })).toBe('Seeded the story: 18 memories written, 17 shared facts (1 of them replaced by a later one, kept as history) and 1 private note of the after-sales agent.');
    expect(seedSummary({ written: 3, shared: 2, private: 1, replaced: 0 })).toBe('Seeded the story: 3 memories written, 2 shared facts and 1 private note of the after-sales agent.');
    expect(seedSummary({ written: 0, shared: 0, private: 0, replaced: 0 })).toBe('The story is already in memory.');
  });

  it('writes the story with its own times: three days, one after another', async () => {
    const now = Date.parse('2026-03-12T17:00:00Z');
    const seed = storySeed(undefined, now);
    const times = seed.map((s) => s.input.createdAt as number);
    expect(new Set(times).size).toBe(seed.length);
    const days = new Set(times.map((t) => new Date(t).toISOString().slice(0, 10)));
    expect([...days].sort()).toEqual(['2026-03-10', '2026-03-11', '2026-03-12']);
    expect(Math.max(...times)).toBeLessThanOrEqual(now);
    await seedStory(memory, undefined, now);
    const stored = (await memory.list(userNamespace(), { limit: 100, includeClosed: true })).items.map((r) => r.createdAt);
    expect(new Set(stored).size).toBe(seed.length - 1);
  });

  it('leaves an offline reply out of the history the LLM is sent later', async () => {
    await seedStory(memory);
    const agent = agentById('after-sales');
    const session = openAgentSession(memory, agent, 'c');
    const llm = scriptedLlm(() => 'Noted.');
    const offline = await runTurn({ memory, session, agent, llm, online: false, text: 'Is my phone under warranty?', seq: 1 });
    expect(offline.reply).toContain(OFFLINE_LABEL);
    await runTurn({ memory, session, agent, llm, online: true, text: 'Thanks, and the charging port?', seq: 2 });
    const sent = llm.prompts[0]!;
    expect(sent.some((m) => m.content.includes(OFFLINE_LABEL))).toBe(false);
    expect(sent.filter((m) => m.role === 'assistant')).toEqual([]);
    expect(sent.map((m) => m.content)).toContain('Is my phone under warranty?');
  });

  it('offline, remembers the facts the user writes as REMEMBER: lines, and says so', async () => {
    const agent = agentById('after-sales');
    const llm = scriptedLlm(() => 'never');
    const turn = await runTurn({ memory, session: openAgentSession(memory, agent, 'c'), agent, llm, online: false, text: 'Hi.\nREMEMBER: The user has a second phone, an iPhone 12.', seq: 1 });
    expect(turn.tools.map((t) => [t.tool, t.ok, t.argument])).toEqual([['remember', true, 'The user has a second phone, an iPhone 12.']]);
    expect((await memory.list(userNamespace(), { limit: 10 })).items.map((r) => r.content)).toEqual(['The user has a second phone, an iPhone 12.']);
    expect(OFFLINE_HELP).toContain('REMEMBER:');
    const plain = await runTurn({ memory, session: openAgentSession(memory, agent, 'd'), agent, llm, online: false, text: 'I have a dog.', seq: 2 });
    expect(plain.tools).toEqual([]);
    expect(await memory.count(userNamespace())).toBe(1);
  });

  it('stores a REMEMBER line said in the first person about the user, keeping the words said', async () => {
    const agent = agentById('after-sales');
    const llm = scriptedLlm(() => 'never');
    const turn = await runTurn({ memory, session: openAgentSession(memory, agent, 'c'), agent, llm, online: false, text: 'REMEMBER: I prefer window seats', seq: 1 });
    expect(turn.tools.map((t) => t.summary)).toEqual(["Remembered in the user's memory: The user prefers window seats"]);
    const [stored] = (await memory.list(userNamespace(), { limit: 10 })).items;
    expect(stored?.content).toBe('The user prefers window seats');
    expect(stored?.metadata).toEqual({ said: 'I prefer window seats' });
  });
});
