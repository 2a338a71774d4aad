import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { expect, it } from 'vitest';
import { runSyncStory } from '../src/sync-story.ts';

it('the marketing replica sees the after-sales facts through the relay, and nothing private', async () => {
  const lines: string[] = [];
  const { seenByMarketing, peersOfMarketing, marketingSeesPrivate } = await runSyncStory((line) => lines.push(line), { indexedDB: new IDBFactory(), IDBKeyRange });
  expect(seenByMarketing.map((r) => r.content)).toEqual(['The user prefers phone calls over e-mail.', 'Repair work order TS20240315 is open for the charging port.']);
  expect(seenByMarketing[1]!.metadata).toEqual({ status: 'parts-ordered' });
  expect(marketingSeesPrivate).toBe(false);
  expect(peersOfMarketing).toEqual(['after-sales-agent on support-server']);
  const output = lines.join('\n');
  expect(output).toContain('readOnly=true');
  expect(output).toContain('-> The user prefers phone calls over e-mail.');
  expect(output).not.toContain('warranty');
});
