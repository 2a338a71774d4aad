import { describe, expect, it } from 'vitest';
import { countChatTokens, createTokenizer, type ChatMessage, type LlmHook } from '../src/index.ts';
import { expectCode, openTestMemory } from './helpers.ts';

const ns = { userId: 'u1', agentId: 'support' };
const HOUR = 3_600_000;

describe('session', () => {
  it('contexts and sessions check names against the memory\'s configured limits, as the other verbs do', async () => {
    const long = { userId: 'u'.repeat(300) }; // over the default maxNameLength (256)
    const wide = (await openTestMemory({ limits: { maxNameLength: 400, maxContentBytes: 64 * 1024 } })).memory;
    const turn = 'x'.repeat(40 * 1024); // over the default maxContentBytes (32 KiB)
    const session = wide.session({ namespace: long, id: 's'.repeat(300) });
    await session.addTurn('user', turn);
    await wide.remember({ namespace: long, content: 'The phone charger is broken' });
    const built = await session.context('phone charger', { budget: 20_000 });
    expect(built.report.included.map((item) => item.layer).sort()).toEqual(['long_term', 'session']);
    expect((await wide.buildContext({ namespace: long, query: 'phone', sessionId: 's'.repeat(300) })).report.layers.long_term.items).toBe(1);

    const narrow = (await openTestMemory({ limits: { maxNameLength: 8 } })).memory;
    await expectCode(narrow.buildContext({ namespace: ns, query: 'phone', sessionId: 'session-1042' }), 'INVALID_INPUT', 'sessionId');
    expect(() => narrow.session({ namespace: ns, id: 'session-1042' })).toThrowError(/id/);
    expect(() => narrow.session({ namespace: { userId: 'user-1042' } })).toThrowError(/userId/);
  });

  it('stores turns as expiring session memories; context() shows only this session; end() keeps the durable ones', async () => {
    const { memory, clock } = await openTestMemory();
    const other = memory.session({ namespace: ns, id: 'other' });
    await other.addTurn('user', 'A turn of another conversation');
    const session = memory.session({ namespace: ns, id: 'today', ttl: '2h' });
    const first = await session.addTurn('user', 'My phone does not charge');
    expect(first).toMatchObject({ layer: 'session', source: 'user', expiresAt: clock.now() + 2 * HOUR, metadata: { session: 'today', seq: 1, durable: false } });
    clock.advance(1000);
    await session.addTurn('assistant', 'Is it the charging port?');
    clock.advance(1000);
    const durable = await session.addTurn('user', 'Yes. I prefer phone calls over e-mail.', { durable: true, tags: ['preference'] });

    const { text, messages } = await session.context('charging');
    expect(text).not.toContain('another conversation');
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);

    const report = await session.end();
    expect(report).toEqual({ promoted: [durable.id], expiring: 2, extracted: [], summaryId: null, llm: { calls: 0, promptTokens: 0, completionTokens: 0, countedLocally: 0 } });
    const promoted = (await memory.get(ns, durable.id))!;
    expect(promoted).toMatchObject({ layer: 'long_term', expiresAt: null, tags: ['preference'] });

    clock.advance(3 * HOUR);
    expect(await memory.count(ns, { layer: 'session' })).toBe(1); // only the other session's turn (1-day TTL) is left
    expect((await memory.list(ns, { layer: 'long_term' })).items.map((r) => r.content)).toEqual(['Yes. I prefer phone calls over e-mail.']);
    await expectCode(session.addTurn('user', 'still there?'), 'CLOSED');
    await expectCode(session.end(), 'CLOSED');
    await memory.close();
  });

  it('a turn said again appears once, at its latest position', async () => {
    const { memory, clock } = await openTestMemory();
    const session = memory.session({ namespace: ns, id: 's' });
    for (const text of ['hello', 'my order is late', 'ok', 'it was due Monday', 'ok']) {
      clock.advance(1000);
      await session.addTurn('user', text);
    }
    const { messages } = await session.context('order');
    expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['hello', 'my order is late', 'it was due Monday', 'ok']);
    await memory.close();
  });

  it('rejects bad turns and options with INVALID_INPUT, writing nothing', async () => {
    const { memory } = await openTestMemory();
    const session = memory.session({ namespace: ns });
    expect(session.id).toMatch(/^[0-9a-f-]{36}$/);
    await expectCode(session.addTurn('robot' as never, 'hi'), 'INVALID_INPUT', 'role');
    await expectCode(session.addTurn('user', ''), 'INVALID_INPUT', 'content');
    await expectCode(session.addTurn('user', 'hi', { durable: 'yes' } as never), 'INVALID_INPUT', 'options.durable');
    await expectCode(session.addTurn('user', 'hi', { pin: true } as never), 'INVALID_INPUT', 'options.pin');
    await expectCode(session.context(undefined, { budget: -5 }), 'INVALID_INPUT', 'budget');
    await expectCode(session.end({ extractFacts: true }), 'INVALID_INPUT', 'extractFacts');
    await expectCode(session.addTurn('user', 'hi', null as never), 'INVALID_INPUT', 'options');
    await expectCode(session.end(null as never), 'INVALID_INPUT', '');
    await expectCode(session.end({ summarize: 'yes' } as never), 'INVALID_INPUT', 'summarize');
    expect(await memory.count(ns)).toBe(0);
    await expectCode(() => memory.session({ namespace: ns, id: '' }), 'INVALID_INPUT', 'id');
    await expectCode(() => memory.session({ namespace: ns, ttl: {} as never }), 'INVALID_INPUT', 'ttl');
    await expectCode(() => memory.session({ namespace: ns, ttl: 'soon' }), 'INVALID_INPUT', 'ttl');
    await expectCode(() => memory.session({ namespace: ns, colour: 1 } as never), 'INVALID_INPUT', 'colour');
    await expectCode(() => memory.session({} as never), 'NAMESPACE_REQUIRED');
    await memory.close();
  });

  it('end() is safe to retry: after the LLM hook failed, a second end() repeats no step that completed', async () => {
    const { memory } = await openTestMemory();
    const calls = { extractFacts: 0, summarize: 0 };
    const llm: LlmHook = {
      // Different wording on every call: a repeated call would store new memories, not deduplicated ones.
      extractFacts: async () => ({ facts: [`The user prefers calls (${++calls.extractFacts})`, `The phone is a Pixel (${calls.extractFacts})`] }),
      summarize: async () => {
        if (++calls.summarize === 1) throw new Error('LLM server unavailable');
        return { summary: 'Charging problem; call the user.' };
      },
    };
    const session = memory.session({ namespace: ns, llm });
    const durable = await session.addTurn('user', 'My phone does not charge', { durable: true });
    await session.addTurn('assistant', 'I will call you back');
    await expect(session.end({ extractFacts: true, summarize: true })).rejects.toThrow('LLM server unavailable');
    const report = await session.end({ extractFacts: true, summarize: true });
    expect(calls).toEqual({ extractFacts: 1, summarize: 2 });
    expect(report.promoted).toEqual([durable.id]);
    expect(report.expiring).toBe(1);
    expect(report.extracted).toHaveLength(2);
    expect(report.llm.calls).toBe(2); // the answered calls; the failed one reported no usage
    const longTerm = (await memory.list(ns, { layer: 'long_term', limit: 100 })).items.map((r) => r.content).sort();
    expect(longTerm).toEqual(['Charging problem; call the user.', 'My phone does not charge', 'The phone is a Pixel (1)', 'The user prefers calls (1)']);
    await expectCode(session.end(), 'CLOSED');
  });

  it('the LLM hook is off by default; asked for, its every token is reported apart', async () => {
    const { memory } = await openTestMemory();
    const seen: ChatMessage[][] = [];
    let calls = 0;
    const llm: LlmHook = {
      extractFacts: async (turns) => {
        calls++;
        seen.push([...turns]);
        return { facts: ['The user prefers phone calls.'] }; // no usage reported: counted locally
      },
      summarize: async () => {
        calls++;
        return { summary: 'Charging problem; call the user.', usage: { promptTokens: 120, completionTokens: 9 } };
      },
    };
    const quiet = memory.session({ namespace: ns, llm });
    await quiet.addTurn('user', 'I prefer phone calls');
    await quiet.context();
    expect((await quiet.end()).llm.calls).toBe(0);
    expect(calls).toBe(0);

    const session = memory.session({ namespace: ns, llm });
    await session.addTurn('user', 'My phone does not charge');
    await session.addTurn('assistant', 'I will call you back');
    const report = await session.end({ extractFacts: true, summarize: true });
    expect(calls).toBe(2);
    const tokenizer = await createTokenizer();
    const prompt = countChatTokens(tokenizer, seen[0]!);
    expect(report.llm).toEqual({ calls: 2, promptTokens: prompt + 120, completionTokens: tokenizer.count('The user prefers phone calls.') + 9, countedLocally: 1 });
    expect(report.extracted).toHaveLength(1);
    expect((await memory.get(ns, report.extracted[0]!))).toMatchObject({ layer: 'long_term', source: 'memory', content: 'The user prefers phone calls.' });
    expect((await memory.get(ns, report.summaryId!))?.tags).toEqual(['session-summary']);

    // A hook that answers in the wrong shape is the caller's mistake, reported as such.
    const broken = memory.session({ namespace: ns, llm: { extractFacts: async () => ({ facts: 'one fact' as never }) } });
    await broken.addTurn('user', 'something to extract');
    await expectCode(broken.end({ extractFacts: true }), 'INVALID_INPUT', 'facts');
    await memory.close();
  });
});
