/**
 * What the suggestion step (suggested updates without an LLM) catches and misses on the
 * committed facts-changed set: every memory written without its key, one `remember` at a
 * time in time order; for each later version of a fact, is the version before it among
 * the write's `suggestedUpdates`, and which suggestions point elsewhere. Then the same
 * through `consolidate({ dryRun: true })`.
 *
 *   npx tsx --conditions=development test/bench/facts-suggestions.ts
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import 'fake-indexeddb/auto';
import { openMemory } from '@zeromem/core';

interface Line {
  ns: string;
  id: string;
  text: string;
  ts: string;
  key?: string;
}

const file = join(dirname(fileURLToPath(import.meta.url)), 'data', 'facts-changed', 'memories.jsonl');
const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line);
let now = 0;
const memory = await openMemory({ clock: { now: () => now } });
const stored = new Map<string, Line>(); // record id -> line
const previous = new Map<string, string>(); // ns + key -> record id of the version before
const caught: string[] = [];
const missed: string[] = [];
const elsewhere: string[] = [];
for (const line of lines) {
  now = Date.parse(`${line.ts}Z`);
  const { id, suggestedUpdates } = await memory.remember({ namespace: { userId: line.ns }, content: line.text, createdAt: now }, { suggestUpdates: true });
  stored.set(id, line);
  const before = line.key ? previous.get(`${line.ns} ${line.key}`) : undefined;
  if (line.key) previous.set(`${line.ns} ${line.key}`, id);
  for (const s of suggestedUpdates) if (s.id !== before) elsewhere.push(`"${line.text}" -> "${stored.get(s.id)!.text}" (${s.differs.join(', ')})`);
  if (before === undefined) continue;
  const hit = suggestedUpdates.find((s) => s.id === before);
  (hit ? caught : missed).push(`"${stored.get(before)!.text}" -> "${line.text}"${hit ? ` (${hit.differs.join(', ')})` : ''}`);
}
const unique = (list: string[]) => [...new Set(list)];
console.log(`remember: ${caught.length} of ${caught.length + missed.length} changes suggested, ${elsewhere.length} suggestions elsewhere`);
console.log('\ncaught:\n' + unique(caught).map((s) => `- ${s}`).join('\n'));
console.log('\nmissed:\n' + unique(missed).map((s) => `- ${s}`).join('\n'));
console.log('\nelsewhere:\n' + unique(elsewhere).map((s) => `- ${s}`).join('\n'));
let consolidated = 0;
for (const ns of new Set(lines.map((l) => l.ns))) consolidated += (await memory.consolidate({ userId: ns }, { dryRun: true })).suggestedUpdates.length;
console.log(`\nconsolidate (dry run, no embedder): ${consolidated} suggestions over ${new Set(lines.map((l) => l.ns)).size} namespaces`);
memory.close();
