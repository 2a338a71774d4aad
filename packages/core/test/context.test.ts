import { describe, expect, it } from 'vitest';
import { countChatTokens, createTokenizer, type BuildContextOptions } from '../src/index.ts';
import { expectCode, openTestMemory } from './helpers.ts';

const ns = { userId: 'u1', agentId: 'support' };
const user = { userId: 'u1' };

/** A memory with a conversation of `turns` turns (one second apart) and some long-term and knowledge memories. */
async function seeded(turns = 6) {
  const opened = await openTestMemory();
  const { memory, clock } = opened;
  await memory.rememberMany([
    { namespace: ns, content: 'The user prefers phone calls over e-mail', tags: ['preference'] },
    { namespace: ns, content: 'The charging port of the phone is loose', importance: 0.8 },
    { namespace: ns, content: 'Phones are repaired within five working days', layer: 'knowledge' },
    { namespace: ns, content: 'Warranty covers the charging port for two years', layer: 'knowledge' },
  ]);
  for (let i = 1; i <= turns; i++) {
    clock.advance(1000);
    await memory.remember({ namespace: ns, content: `turn ${i}: the phone does not charge (${i})`, layer: 'session', source: i % 2 ? 'user' : 'assistant', ttl: '1d' });
  }
  return opened;
}

describe('buildContext', () => {
  it('renders system, long-term, knowledge and the newest session turns in order, as text and as messages', async () => {
    const { memory } = await seeded(4);
    const { text, messages, report } = await memory.buildContext({ namespace: ns, query: 'charging port of the phone, how fast is it repaired', system: 'You are the support agent.', budget: 400 });
    expect(text.split('\n')).toEqual([
      'You are the support agent.',
      '',
      '## Long-term memory',
      '- The charging port of the phone is loose',
      '- The user prefers phone calls over e-mail',
      '',
      '## Knowledge',
      '- Phones are repaired within five working days', // "phones" meets the query's "phone" through its stem
      '- Warranty covers the charging port for two years',
      '',
      '## Conversation',
      'user: turn 1: the phone does not charge (1)',
      'assistant: turn 2: the phone does not charge (2)',
      'user: turn 3: the phone does not charge (3)',
      'assistant: turn 4: the phone does not charge (4)',
    ]);
    expect(messages[0]).toEqual({ role: 'system', content: text.split('\n\n## Conversation')[0] });
    expect(messages.slice(1).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const tokenizer = await createTokenizer();
    expect(report.textTokens).toBe(tokenizer.count(text));
    expect(report.messageTokens).toBe(countChatTokens(tokenizer, messages));
    expect(report.tokens).toBe(Math.max(report.textTokens, report.messageTokens));
    expect(report.layers.long_term.items).toBe(2);
    expect(report.layers.knowledge.items).toBe(2);
    expect(report.layers.session.items).toBe(4);
    expect(report.layers.long_term.tokens).toBe(tokenizer.count('## Long-term memory\n- The charging port of the phone is loose\n- The user prefers phone calls over e-mail'));
    expect(report.included.filter((i) => i.layer === 'long_term').every((i) => typeof i.score === 'number' && i.score > 0)).toBe(true);
    expect(report.included[0]).toEqual({ layer: 'system', id: 'system:0', score: null, tokens: tokenizer.count('You are the support agent.'), truncated: false });
    expect(report.dropped).toEqual([]);
    await memory.close();
  });

  it('keeps the newest session turns that fit its quota, oldest first, and says what it dropped', async () => {
    const { memory } = await seeded(10);
    const tokenizer = await createTokenizer();
    const turnTokens = tokenizer.count('user: turn 10: the phone does not charge (10)\n');
    const { text, report } = await memory.buildContext({
      namespace: ns,
      budget: 1000,
      // The only layer: no other one leaves it quota to borrow.
      layers: { profile: false, session: { maxTokens: 5 + 3 * (turnTokens + 6) }, long_term: false, knowledge: false },
    });
    const turns = text.split('\n').filter((line) => line.includes(': turn '));
    expect(turns.length).toBeGreaterThanOrEqual(3);
    expect(turns.length).toBeLessThan(10);
    // The newest ones, contiguous, in chronological order.
    const numbers = turns.map((line) => Number(/turn (\d+)/.exec(line)![1]));
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => 10 - numbers.length + 1 + i));
    expect(report.layers.session.tokens).toBeLessThanOrEqual(report.layers.session.maxTokens);
    const dropped = report.dropped.filter((d) => d.layer === 'session');
    expect(dropped).toHaveLength(10 - numbers.length);
    expect(dropped.every((d) => d.reason === 'quota')).toBe(true);
    // Without a query, the turns are the recall query: the charging-port memory comes back.
    const withRecall = await memory.buildContext({ namespace: ns, budget: 1000, layers: { knowledge: false } });
    expect(withRecall.text).toContain('- The charging port of the phone is loose');
    await memory.close();
  });

  it('drops by item quota, token quota and total budget; a too-big memory is skipped for a smaller one', async () => {
    const { memory } = await openTestMemory();
    const long = `The phone ${'charging port problem '.repeat(60)}`;
    await memory.rememberMany([
      { namespace: ns, content: long, importance: 1 },
      { namespace: ns, content: 'charging port fixed once before' },
      { namespace: ns, content: 'phone charging port is original' },
    ]);
    // The long-term layer alone: its quota is the only one, so nothing flows to it.
    const base: BuildContextOptions = { namespace: ns, query: 'phone charging port problem', layers: { profile: false, session: false, knowledge: false } };
    const byItems = await memory.buildContext({ ...base, layers: { ...base.layers, long_term: { maxItems: 1 } } });
    expect(byItems.report.included.map((i) => i.layer)).toEqual(['long_term']);
    expect(byItems.report.dropped.map((d) => d.reason)).toEqual(['quota', 'quota']);
    // The report says in numbers that the budget still had room when the quotas left them out, and that no layer had any to lend.
    for (const d of byItems.report.dropped) {
      expect(d.detail).toMatch(/^the layers' quotas are spent: 1 of 1 items, \d+ of 2000 tokens in use, this item needs \d+; \d+ of 2000 tokens of the budget in use$/);
    }
    expect(Number(/(\d+) of 2000 tokens of the budget/.exec(byItems.report.dropped[0]!.detail)![1])).toBeLessThan(2000 - byItems.report.dropped[0]!.tokens);

    const byTokens = await memory.buildContext({ ...base, layers: { ...base.layers, long_term: { maxTokens: 40 } } });
    expect(byTokens.report.dropped.find((d) => d.tokens > 100)?.reason).toBe('quota');
    expect(byTokens.report.layers.long_term.items).toBe(2); // the small ones still fit
    expect(byTokens.report.layers.long_term.tokens).toBeLessThanOrEqual(40);

    const byBudget = await memory.buildContext({ ...base, budget: 50 });
    expect(byBudget.report.dropped.find((d) => d.tokens > 100)?.reason).toBe('budget');
    expect(byBudget.report.tokens).toBeLessThanOrEqual(50);
    expect(byBudget.text).not.toContain(long.slice(0, 40));
    expect(byBudget.text).toContain('charging port fixed once before');

    const cut = await memory.buildContext({ ...base, budget: 200, maxItemTokens: 20 });
    const item = cut.report.included.find((i) => i.truncated)!;
    expect(item.tokens).toBeLessThanOrEqual(22); // "- " and "…" around 19 tokens of content
    expect(cut.text).toContain('- The phone charging port problem');
    expect(cut.text).toContain('…');
    await memory.close();
  });

  it("a layer's unused quota flows to the others: nothing is left out for a full layer while the budget has room", async () => {
    const { memory } = await seeded(3);
    await memory.rememberMany([
      { namespace: ns, content: 'The phone charging port was replaced in 2024' },
      { namespace: ns, content: 'The user charges the phone overnight' },
    ]);
    const query = 'phone charging port';
    // Long-term may hold 1 item and 30 tokens; the session and knowledge layers leave most of theirs unused.
    const layers = { profile: false, session: { maxItems: 10, maxTokens: 300 }, long_term: { maxItems: 1, maxTokens: 30 }, knowledge: { maxItems: 4, maxTokens: 300 } } as const;
    const { text, report } = await memory.buildContext({ namespace: ns, query, budget: 1000, layers });
    expect(report.layers.long_term.items).toBe(4); // every long-term memory: 3 items and the tokens lent by the others
    expect(report.layers.long_term.tokens).toBeGreaterThan(30);
    expect(text).toContain('- The user charges the phone overnight');
    expect(report.dropped).toEqual([]);
    // Lent, never more than the others left: the layers together stay within their quotas, and the budget holds.
    const memoryLayers = [report.layers.session, report.layers.long_term, report.layers.knowledge];
    expect(memoryLayers.reduce((sum, l) => sum + l.tokens, 0)).toBeLessThanOrEqual(300 + 30 + 300);
    expect(memoryLayers.reduce((sum, l) => sum + l.items, 0)).toBeLessThanOrEqual(10 + 1 + 4);
    expect(report.tokens).toBeLessThanOrEqual(1000);
    await memory.close();
  });

  it("a layer's quota is its own: another layer borrows only what is left after every layer took its share", async () => {
    const { memory } = await openTestMemory();
    const tokenizer = await createTokenizer();
    await memory.rememberMany([
      ...Array.from({ length: 12 }, (_, i) => ({ namespace: ns, content: `charging port note ${i}: the port was checked and cleaned` })),
      { namespace: ns, content: 'Warranty covers the charging port for two years', layer: 'knowledge' as const },
      { namespace: ns, content: 'Charging port repairs take five working days', layer: 'knowledge' as const },
    ]);
    const knowledgeSection = tokenizer.count('## Knowledge\n- Warranty covers the charging port for two years\n- Charging port repairs take five working days\n');
    // Long-term is filled first and has candidates for far more than the budget; knowledge keeps its share.
    const { report } = await memory.buildContext({
      namespace: ns,
      query: 'charging port',
      budget: 150,
      layers: { profile: false, session: false, long_term: { maxTokens: 150 - knowledgeSection - 10 }, knowledge: { maxTokens: knowledgeSection + 10 } },
    });
    expect(report.layers.knowledge.items).toBe(2);
    expect(report.layers.long_term.items).toBeGreaterThan(0);
    expect(report.tokens).toBeLessThanOrEqual(150);
    // What did not fit is left out for the budget, and says so in numbers.
    const left = report.dropped.filter((d) => d.layer === 'long_term');
    expect(left.length).toBeGreaterThan(0);
    for (const d of left) {
      expect(d.reason).toBe('budget');
      expect(d.detail).toMatch(/^(\d+ of 150 tokens of the budget in use, this item needs \d+|as rendered, the context with it takes \d+ of 150 tokens of the budget)$/);
    }
    await memory.close();
  });

  it('an older session turn left out because a newer one did not fit says so, not that it does not fit', async () => {
    // Found by the budget property (seed 699766040): the older turn would fit the budget by
    // itself, but turns stay contiguous, so it goes with the newer one that did not.
    const { memory, clock } = await openTestMemory();
    const ns = { userId: 'turns' };
    for (const content of ['phone', 'phone phone']) {
      clock.advance(1000);
      await memory.remember({ namespace: ns, content, layer: 'session', source: 'user', ttl: '1d' });
    }
    const { report } = await memory.buildContext({ namespace: ns, budget: 8, layers: { profile: false } });
    expect(report.included).toEqual([]);
    const [newer, older] = report.dropped;
    expect(newer!.detail).toMatch(/^(\d+) of 8 tokens of the budget in use, this item needs (\d+)$/);
    const [, used, need] = /^(\d+) of 8 tokens of the budget in use, this item needs (\d+)$/.exec(newer!.detail)!.map(Number);
    expect(used! + need!).toBeGreaterThan(8);
    expect(older!.reason).toBe('budget');
    expect(older!.detail).toBe(`a newer session turn (${newer!.id}) was left out for the budget; turns stay contiguous, so older ones are left out with it`);
    await memory.close();
  });

  it('content already in the context appears once; the repeat is dropped as a duplicate of the first', async () => {
    const { memory } = await openTestMemory();
    const shared = { userId: 'kb' };
    await memory.remember({ namespace: user, content: 'Warranty covers the charging port for two years' });
    await memory.remember({ namespace: user, content: 'Always answer politely' });
    const kb = await memory.remember({ namespace: shared, content: 'Warranty covers the charging port  for two years', layer: 'knowledge' });
    const { text, report } = await memory.buildContext({
      namespace: user,
      query: 'warranty charging port politely answer',
      system: 'Always answer politely',
      layers: { knowledge: { namespace: shared } },
    });
    expect(text.match(/Warranty covers/g)).toHaveLength(1);
    expect(text.match(/Always answer politely/g)).toHaveLength(1);
    const duplicates = report.dropped.filter((d) => d.reason === 'duplicate');
    expect(duplicates.map((d) => [d.layer, d.duplicateOf === 'system:0' || d.id === kb.id])).toEqual(
      expect.arrayContaining([
        ['long_term', true],
        ['knowledge', true],
      ]),
    );
    await memory.close();
  });

  it('reads each layer from the namespace it names, and reports the full history it replaces', async () => {
    const { memory } = await seeded(3);
    const tokenizer = await createTokenizer();
    for (let i = 0; i < 40; i++) await memory.remember({ namespace: ns, content: `Older note ${i}: the customer asked about order ${1000 + i}` });
    const { report } = await memory.buildContext({ namespace: ns, query: 'charging port', budget: 300, system: 'Be brief.' });
    const all = (await memory.list(ns, { limit: 1000 })).items;
    const lines = (layer: string, prefix: (r: (typeof all)[number]) => string) =>
      all.filter((r) => r.layer === layer).reduce((sum, r) => sum + tokenizer.count(`${prefix(r)}${r.content}\n`), 0);
    const expected =
      tokenizer.count('Be brief.\n') + 1 +
      tokenizer.count('## Conversation\n') + lines('session', (r) => `${r.source}: `) + 1 +
      tokenizer.count('## Long-term memory\n') + lines('long_term', () => '- ') + 1 +
      tokenizer.count('## Knowledge\n') + lines('knowledge', () => '- ') + 1;
    expect(report.fullHistoryTokens).toBe(expected);
    expect(report.fullHistoryTokens!).toBeGreaterThan(3 * report.tokens);
    expect((await memory.buildContext({ namespace: ns, fullHistory: false })).report.fullHistoryTokens).toBeNull();

    // The user's own namespace as long-term source: the agent namespace's memories stay out.
    await memory.remember({ namespace: user, content: 'The charging port was replaced in 2025' });
    const other = await memory.buildContext({ namespace: ns, query: 'charging port', layers: { long_term: { namespace: user } } });
    expect(other.text).toContain('replaced in 2025');
    expect(other.text).not.toContain('loose');
    await memory.close();
  });

  it('counts only the memories it keeps as accessed, not every candidate recall offered', async () => {
    const { memory, place, name } = await openTestMemory();
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await memory.remember({ namespace: user, content: `charging port note ${i}`, importance: 0.5 + i / 10 })).id);
    const { report } = await memory.buildContext({ namespace: user, query: 'charging port', layers: { profile: false, session: false, long_term: { maxItems: 2 }, knowledge: false } });
    const kept = report.included.map((i) => i.id);
    expect(kept).toEqual([ids[4], ids[3]]);
    await memory.buildContext({ namespace: user, query: 'charging port', trackAccess: false });
    await memory.close(); // writes the batched access counts
    const reopened = await openTestMemory({ place, name });
    const counts = await Promise.all(ids.map(async (id) => (await reopened.memory.get(user, id))!.accessCount));
    expect(counts).toEqual([0, 0, 0, 1, 1]);
    await reopened.memory.close();
  });

  it('expired session turns are not in the context', async () => {
    const { memory, clock } = await seeded(2);
    clock.advance(2 * 86_400_000);
    const { report } = await memory.buildContext({ namespace: ns, query: 'phone' });
    expect(report.layers.session.items).toBe(0);
    await memory.close();
  });

  it('counts Chinese memories with the BPE', async () => {
    const { memory } = await openTestMemory();
    await memory.remember({ namespace: user, content: '用户更喜欢电话联系，不喜欢电子邮件。' });
    const { report } = await memory.buildContext({ namespace: user, query: '电话联系' });
    const tokenizer = await createTokenizer();
    expect(report.included).toEqual([expect.objectContaining({ layer: 'long_term', tokens: tokenizer.count('- 用户更喜欢电话联系，不喜欢电子邮件。'), truncated: false })]);
    expect(report.included[0]!.tokens).toBe(1 + 10); // "-" + " 用户…" merge: 11 tokens, not 18 characters
    await memory.close();
  });

  it('counts with the tokenizer passed to openMemory, including its own chat count', async () => {
    const characters = {
      id: 'characters',
      count: (text: string) => [...text].length,
      truncate: (text: string, max: number) => [...text].slice(0, max).join(''),
      countMessages: (messages: readonly { role: string; content: string }[]) => messages.reduce((sum, m) => sum + [...m.content].length + 10, 0),
    };
    const { memory } = await openTestMemory({ tokenizer: characters });
    for (let i = 0; i < 30; i++) await memory.remember({ namespace: user, content: `phone fact number ${i} about the charging port` });
    const { text, messages, report } = await memory.buildContext({ namespace: user, query: 'phone charging port', budget: 300 });
    expect(report.tokenizer).toBe('characters');
    expect(report.textTokens).toBe([...text].length);
    expect(report.messageTokens).toBe(characters.countMessages(messages));
    expect(report.tokens).toBeLessThanOrEqual(300);
    expect(report.dropped.some((d) => d.reason === 'budget')).toBe(true);
    expect((await memory.tokenizer()).id).toBe('characters');
    await memory.close();
    await expectCode(openTestMemory({ tokenizer: { id: 'x', count: 3 } as never }), 'INVALID_INPUT', 'tokenizer');
  });

  it('invalid options are INVALID_INPUT (or NAMESPACE_REQUIRED) with the path of the mistake', async () => {
    const { memory } = await seeded(1);
    const cases: Array<[unknown, string]> = [
      [{ namespace: ns, budget: -1 }, 'budget'],
      [{ namespace: ns, budget: 0 }, 'budget'],
      [{ namespace: ns, budget: 1.5 }, 'budget'],
      [{ namespace: ns, budget: '1000' }, 'budget'],
      [{ namespace: ns, budget: 2_000_000 }, 'budget'],
      [{ namespace: ns, layers: { episodic: {} } }, 'layers.episodic'],
      [{ namespace: ns, layers: { session: { maxItems: -2 } } }, 'layers.session.maxItems'],
      [{ namespace: ns, layers: { long_term: { maxTokens: Number.NaN } } }, 'layers.long_term.maxTokens'],
      [{ namespace: ns, layers: { knowledge: { size: 3 } } }, 'layers.knowledge.size'],
      [{ namespace: ns, layers: { knowledge: true } }, 'layers.knowledge'],
      [{ namespace: ns, layers: { system: { maxItems: 1 } } }, 'layers.system.maxItems'],
      [{ namespace: ns, layers: [] }, 'layers'],
      [{ namespace: ns, layers: { long_term: { namespace: { agentId: 'x' } } } }, 'layers.long_term.namespace.userId'],
      [{ namespace: ns, query: 42 }, 'query'],
      [{ namespace: ns, query: [{ role: 'robot', content: 'x' }] }, 'query.0.role'],
      [{ namespace: ns, system: '' }, 'system'],
      [{ namespace: ns, system: ['ok', 3] }, 'system.1'],
      [{ namespace: ns, maxItemTokens: 0 }, 'maxItemTokens'],
      [{ namespace: ns, now: 'yesterday' }, 'now'],
      [{ namespace: ns, sessionId: '' }, 'sessionId'],
      [{ namespace: ns, fullHistory: 'yes' }, 'fullHistory'],
      [{ namespace: ns, colour: 'red' }, 'colour'],
      [{ namespace: ns, system: 'word '.repeat(50), budget: 20 }, 'budget'],
      [{ namespace: ns, system: 'word '.repeat(50), layers: { system: { maxTokens: 10 } } }, 'layers.system.maxTokens'],
      ['budget 100', ''],
    ];
    for (const [options, path] of cases) await expectCode(memory.buildContext(options as never), 'INVALID_INPUT', path);
    await expectCode(memory.buildContext(undefined as never), 'NAMESPACE_REQUIRED');
    await expectCode(memory.buildContext({ budget: 100 } as never), 'NAMESPACE_REQUIRED');
    await memory.close();
  });
});
