import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { expect, it } from 'vitest';
import { runStory } from '../src/story.ts';

it('the marketing agent sees the user facts the after-sales agent recorded, and nothing private', async () => {
  const lines: string[] = [];
  const { userFacts, channelVersions, marketingPrivate, marketingContext, transcriptTokens } = await runStory((line) => lines.push(line), { indexedDB: new IDBFactory(), IDBKeyRange });
  expect(userFacts.map((r) => r.content)).toEqual([
    "The charging port of the user's phone is loose.",
    'Repair work order TS20240315 is open for the charging port.',
    'The user prefers e-mail; no phone calls any more.',
    'Repair status update due Wednesday at 15:00, by e-mail.',
  ]);
  // The user switched from phone to e-mail on day 3: one key, two versions, the first closed by the second.
  const [phone, email] = channelVersions;
  expect(channelVersions.map((r) => r.content)).toEqual(['The user prefers phone calls over e-mail.', 'The user prefers e-mail; no phone calls any more.']);
  expect(phone).toMatchObject({ validFrom: Date.UTC(2026, 2, 17, 9), validUntil: Date.UTC(2026, 2, 18, 9), closedBy: email!.id });
  expect(email).toMatchObject({ validFrom: Date.UTC(2026, 2, 18, 9), validUntil: null, closedBy: null });
  expect(userFacts.find((r) => r.id === 'TS20240315')?.metadata).toEqual({ status: 'parts-ordered' });
  expect(marketingPrivate).toBe(0);
  const output = lines.join('\n');
  expect(output).toContain('deduplicated=true');
  // 1 session note + the 9 call turns not marked to keep (1-day TTL); the 3 kept ones are after-sales notes now.
  expect(output).toContain('sweep: 10 expired session memories deleted');
  expect(output).toContain('ended with 2 turn(s) kept, 4 left to expire, 0 LLM calls by memory');
  expect(output).not.toContain('warranty'); // the after-sales note never reaches the marketing agent's view

  // The marketing agent's context: its instructions and the user's facts that answer its question, within budget.
  const { text, messages, report } = marketingContext;
  expect(report.tokens).toBeLessThanOrEqual(300);
  expect(messages).toHaveLength(1);
  expect(messages[0]!.role).toBe('system');
  // It reaches the user only the current way: the profile comes first, the closed phone fact is nowhere.
  expect(text).toContain('contact.channel: The user prefers e-mail; no phone calls any more. (since 2026-03-18)');
  expect(text).not.toContain('prefers phone calls');
  expect(report.included.filter((i) => i.layer === 'profile').map((i) => i.id)).toEqual([email!.id]);
  expect(output).toContain('    contact.channel: The user prefers e-mail; no phone calls any more. (since 2026-03-18)');
  expect(output).toContain('contact.channel over time: "The user prefers phone calls over e-mail." 2026-03-17 .. 2026-03-18, then "The user prefers e-mail; no phone calls any more." 2026-03-18 .. now');
  expect(text).not.toMatch(/warranty|wobbles|rarely read/); // after-sales' private notes and call turns stay out
  expect(report.included.filter((i) => i.layer === 'long_term').length).toBeGreaterThan(0);
  expect(report.fullHistoryTokens).toBeGreaterThanOrEqual(report.layers.long_term.tokens);
  expect(transcriptTokens).toBeGreaterThan(report.tokens);
  expect(output).toContain(`token report (o200k_base): ${report.tokens} of a 300-token budget`);
  expect(output).toContain('memory operations spent 0 LLM tokens');
});
