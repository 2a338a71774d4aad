import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * A small data set in the bench-data format, written by the tests themselves:
 * two interleaved namespaces, an exact duplicate (a4 = a1 up to whitespace), an id core
 * rejects ("b 3"), a speaker that is not a zeromem source, an extra key, a blank memory
 * (line 9, cannot be stored), two categories, a query without gold ids and one whose
 * gold id does not exist.
 */
export const MEMORIES = [
  { ns: 'alice', id: 'a1', text: 'I adopted a golden retriever puppy named Biscuit', speaker: 'user', ts: '2023-03-01T09:00:00', session: 's1', seq: 0 },
  { ns: 'bob', id: 'b1', text: 'Bob plays the cello in a community orchestra', speaker: 'user', ts: '2023-03-01T10:00:00', session: 's1', seq: 0 },
  { ns: 'alice', id: 'a2', text: 'Biscuit loves chasing tennis balls in the park', speaker: 'assistant', ts: '2023-03-02T09:00:00', session: 's1', seq: 1 },
  { ns: 'alice', id: 'a3', text: 'My sister lives in Lisbon and works as an architect', speaker: 'user', ts: '2023-03-03T09:00:00', session: 's2', seq: 0 },
  { ns: 'bob', id: 'b 3', text: "Bob's favourite dish is mushroom risotto", speaker: 'user', ts: '2023-03-03T10:00:00', session: 's2', seq: 0 },
  { ns: 'alice', id: 'a4', text: 'I adopted a golden retriever  puppy named Biscuit', speaker: 'user', ts: '2023-03-04T09:00:00', session: 's3', seq: 0 },
  { ns: 'bob', id: 'b2', text: 'Bob is allergic to peanuts', speaker: 'memory', ts: '2023-03-04T10:00:00', session: 's3', seq: 1, mood: 'calm' },
  { ns: 'alice', id: 'a5', text: 'The quarterly budget review is on Friday', speaker: 'system-note', ts: '2023-03-05T09:00:00', session: 's3', seq: 1 },
  { ns: 'bob', id: 'b4', text: '   ', speaker: 'user', ts: '2023-03-05T10:00:00', session: 's3', seq: 2 },
];

/** Line (1-based) of the memory that cannot be stored. */
export const BLANK_LINE = 9;

const ASKED = '2023-03-10T00:00:00';

export const QUERIES = [
  { ns: 'alice', qid: 'q1', query: 'What is the name of my puppy?', gold_ids: ['a4'], gold_sessions: ['s3'], category: 'single', answer: 'Biscuit', ts: ASKED },
  { ns: 'alice', qid: 'q2', query: 'Where does my sister live now?', gold_ids: ['a3', 'a2'], gold_sessions: ['s2'], category: 'single', answer: 'Lisbon', ts: ASKED },
  { ns: 'bob', qid: 'q3', query: 'Which instrument does Bob play in the orchestra?', gold_ids: ['b1', 'b2'], gold_sessions: ['s1'], category: 'multi', answer: 'cello', ts: ASKED },
  { ns: 'bob', qid: 'q4', query: 'mushroom risotto recipe', gold_ids: ['b 3'], gold_sessions: ['s2'], category: 'multi', answer: 'risotto', ts: ASKED },
  { ns: 'alice', qid: 'q5', query: 'budget', gold_ids: [], gold_sessions: [], category: 'single', answer: null, ts: ASKED },
  { ns: 'bob', qid: 'q6', query: 'peanuts', gold_ids: ['b9'], gold_sessions: ['s9'], category: 'multi', answer: 'none', ts: null },
];

/**
 * The expected run, worked out by hand: BM25 hits first, then the namespace's newest memories; a4 right after a1.
 * In q1, a2 (the assistant turn after a1 in session s1) is a hit too: a turn borrows its neighbour's words.
 */
export const EXPECTED_RUN = [
  { qid: 'q1', ranked_ids: ['a1', 'a4', 'a2', 'a5', 'a3'] },
  { qid: 'q2', ranked_ids: ['a3', 'a5', 'a2', 'a1', 'a4'] },
  { qid: 'q3', ranked_ids: ['b1', 'b2', 'b 3'] },
  { qid: 'q4', ranked_ids: ['b 3', 'b2', 'b1'] },
  { qid: 'q5', ranked_ids: ['a5', 'a3', 'a2', 'a1', 'a4'] },
  { qid: 'q6', ranked_ids: ['b2', 'b 3', 'b1'] },
];

export function jsonl(rows: readonly object[]): string {
  return rows.map((row) => JSON.stringify(row)).join('\n') + '\n';
}

/** A temp folder with memories.jsonl, memories.jsonl.gz and queries.jsonl. */
export function writeFixture(): { dir: string; memories: string; memoriesGz: string; queries: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-eval-'));
  const memories = join(dir, 'memories.jsonl');
  const memoriesGz = join(dir, 'memories.jsonl.gz');
  const queries = join(dir, 'queries.jsonl');
  writeFileSync(memories, jsonl(MEMORIES));
  writeFileSync(memoriesGz, gzipSync(jsonl(MEMORIES)));
  writeFileSync(queries, jsonl(QUERIES));
  return { dir, memories, memoriesGz, queries, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
