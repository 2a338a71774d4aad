import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { expect, it } from 'vitest';
import { runStory } from '../src/story.ts';

it('the marketing agent sees the user facts the after-sales agent recorded, and nothing private', async () => {
  const lines: string[] = [];
  const { userFacts, marketingPrivate } = await runStory((line) => lines.push(line), { indexedDB: new IDBFactory(), IDBKeyRange });
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
  expect(output).toContain('sweep: 1 expired session memory deleted');
  expect(output).not.toContain('warranty'); // the after-sales note never reaches the marketing agent's view
});
