import { describe, expect, it } from 'vitest';
import { countChatTokens, createTokenizer } from '../src/index.ts';
import { expectCode } from './helpers.ts';

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
