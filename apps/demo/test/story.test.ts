import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { expect, it } from 'vitest';
import { runStory } from '../src/story.ts';

it('the marketing agent sees the user facts the after-sales agent recorded, and nothing private', async () => {
  const lines: string[] = [];
  const { userFacts, marketingPrivate, marketingContext, transcriptTokens } = await runStory((line) => lines.push(line), { indexedDB: new IDBFactory(), IDBKeyRange });
  expect(userFacts.map((r) => r.content)).toEqual([
    "The charging port of the user's phone is loose.",
    'Repair work order TS20240315 is open for the charging port.',
    'The user prefers phone calls over e-mail.',
    'Callback scheduled for Wednesday at 15:00, by phone.',
  ]);
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
  expect(text).toContain('- The user prefers phone calls over e-mail.');
  expect(text).not.toMatch(/warranty|wobbles|rarely read/); // after-sales' private notes and call turns stay out
  expect(report.included.filter((i) => i.layer === 'long_term').length).toBeGreaterThan(0);
  expect(report.fullHistoryTokens).toBeGreaterThanOrEqual(report.layers.long_term.tokens);
  expect(transcriptTokens).toBeGreaterThan(report.tokens);
  expect(output).toContain(`token report (o200k_base): ${report.tokens} of a 300-token budget`);
  expect(output).toContain('memory operations spent 0 LLM tokens');
});
