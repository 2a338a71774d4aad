import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { countChatTokens, createTokenizer } from '../src/index.ts';
import { expectCode, openTestMemory } from './helpers.ts';

/**
 * The default tokenizer is real BPE: counts are the ones OpenAI's tiktoken gives
 * ("hello world" is [15339, 1917] in cl100k_base, tiktoken's own README example), and
 * Chinese is counted by the BPE, not by characters or whitespace words.
 */
describe('createTokenizer', () => {
  it('counts English and Chinese like tiktoken (o200k_base, the default)', async () => {
    const t = await createTokenizer();
    expect(t.id).toBe('o200k_base');
    expect(t.count('hello world')).toBe(2);
    expect(t.count('你好，世界')).toBe(3); // [177519, 979, 28428]
    expect(t.count('用户更喜欢电话联系，不喜欢电子邮件。')).toBe(10);
    expect(t.count('手机充电口松了')).toBe(6);
    expect(t.count('')).toBe(0);
  });

  it('cl100k_base counts Chinese with more tokens than o200k_base (its smaller CJK vocabulary)', async () => {
    const t = await createTokenizer('cl100k_base');
    expect(t.id).toBe('cl100k_base');
    expect(t.count('hello world')).toBe(2); // [15339, 1917]
    expect(t.count('你好，世界')).toBe(6);
    expect(t.count('用户更喜欢电话联系，不喜欢电子邮件。')).toBe(19);
    expect(t.count('手机充电口松了')).toBe(8);
  });

  it('counts special-token strings in user text as plain characters instead of throwing', async () => {
    const t = await createTokenizer();
    expect(t.count('<|endoftext|>')).toBe(7);
    expect(t.count('a <|im_start|> b')).toBeGreaterThan(3);
  });

  it('truncate keeps a prefix within the token count and never leaves half a character', async () => {
    const t = await createTokenizer();
    const text = '用户更喜欢电话联系，不喜欢电子邮件。😀 The charging port is loose.';
    for (let max = 0; max <= t.count(text) + 1; max++) {
      const cut = t.truncate(text, max);
      expect(text.startsWith(cut)).toBe(true);
      expect(t.count(cut)).toBeLessThanOrEqual(max);
      expect(cut).not.toMatch(/\uFFFD/u);
    }
    expect(t.truncate(text, 1000)).toBe(text);
  });

  it('chat messages cost 3 tokens each plus role and content, and 3 for the reply', async () => {
    const t = await createTokenizer();
    const messages = [
      { role: 'system' as const, content: 'You are helpful.' },
      { role: 'user' as const, content: '你好，世界' },
    ];
    expect(countChatTokens(t, messages)).toBe(3 + (3 + 1 + t.count('You are helpful.')) + (3 + 1 + 3));
  });

  it('an unknown encoding is INVALID_INPUT', async () => {
    await expectCode(createTokenizer('p50k_base' as never), 'INVALID_INPUT', 'encoding');
  });
});

/**
 * One very long word (issue 29 item 13). BPE merges a pre-token's pairs one at a time
 * (gpt-tokenizer, as tiktoken): quadratic in the token's length, 2 s for 64 KB and minutes
 * for 1 MB. Runs of more than 1,000 non-space characters are therefore counted in windows,
 * so counting, truncating and building a context stay linear in the text. No timing is
 * asserted: before the windows, each of these took far longer than its test timeout.
 */
describe('one very long word', () => {
  const word = (n: number) => Array.from({ length: n }, (_, i) => 'abcdefghijklmnopqrstuvwxyz'[(i * 7 + i * i) % 26]).join('');

  it('counts and truncates a 1 MB word (linear: windows of 1,000 characters), and text without such a run exactly as before', { timeout: 60_000 }, async () => {
    const t = await createTokenizer();
    const long = word(1 << 20);
    const count = t.count(long);
    // What the windows mean: the run is counted as its 1,000-character pieces are.
    let windows = 0;
    for (let i = 0; i < long.length; i += 1000) windows += t.count(long.slice(i, i + 1000));
    expect(count).toBe(windows);
    const cut = t.truncate(`Note: ${long} end`, 500);
    expect(`Note: ${long} end`.startsWith(cut)).toBe(true);
    expect(t.count(cut)).toBeLessThanOrEqual(500);
    expect(t.count(cut)).toBeGreaterThan(490);
    // Surrogate pairs are never split between two windows.
    const emoji = '😀'.repeat(3000);
    expect(t.truncate(emoji, 10_000)).toBe(emoji);
    expect(t.truncate(emoji, 7)).not.toMatch(/\uFFFD/u);
    // Text without a run over 1,000 characters is counted exactly as the BPE counts it.
    const ordinary = `${'word '.repeat(2000)}${word(1000)} ${'词'.repeat(1000)}`;
    expect(t.count(ordinary)).toBe(encode(ordinary).length);
  });

  it('buildContext with a 1 MB one-word memory finishes (it took minutes), truncating it to maxItemTokens', { timeout: 60_000 }, async () => {
    const { memory } = await openTestMemory({ limits: { maxContentBytes: 2 << 20 } });
    try {
      const namespace = { userId: 'u1' };
      await memory.remember({ namespace, content: word(1 << 20) });
      await memory.remember({ namespace, content: 'The user prefers window seats' });
      const context = await memory.buildContext({ namespace, budget: 2000, maxItemTokens: 300 });
      expect(context.report.tokens).toBeLessThanOrEqual(2000);
      expect(context.report.included.map((item) => item.truncated).sort()).toEqual([false, true]);
      expect(context.text).toContain('The user prefers window seats');
    } finally {
      await memory.close();
    }
  });
});
