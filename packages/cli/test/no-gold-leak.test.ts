import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRankingQueries } from '../src/eval/ranking-queries.ts';
import { main } from '../src/main.ts';
import { MEMORIES, QUERIES, jsonl, writeFixture } from './fixture.ts';

const fixture = writeFixture();
afterAll(() => fixture.cleanup());

const sink = () => {
  let text = '';
  return { write: (chunk: string) => (text += chunk), get text() { return text; } };
};

async function evalRun(queries: object[], name: string): Promise<{ run: string; stdout: string }> {
  const queriesFile = join(fixture.dir, `${name}.queries.jsonl`);
  writeFileSync(queriesFile, jsonl(queries));
  const out = join(fixture.dir, `${name}.run.jsonl`);
  const stdout = sink();
  const code = await main(['eval', '--memories', fixture.memories, '--queries', queriesFile, '--out', out, '--embedder', 'none'], { stdout, stderr: sink() });
  expect(code).toBe(0);
  return { run: readFileSync(out, 'utf8'), stdout: stdout.text };
}

describe('the ranking never reads answer or gold fields', () => {
  it('gives a byte-identical run file when gold ids, sessions, answers and categories are poisoned or absent', { timeout: 120_000 }, async () => {
    const honest = await evalRun(QUERIES, 'honest');
    // Poisoned: every gold id and answer points at a memory the query does not match.
    const poisoned = QUERIES.map((query) => ({
      ...query,
      gold_ids: [query.ns === 'alice' ? 'a5' : 'b2'],
      gold_sessions: ['s9'],
      answer: MEMORIES.find((memory) => memory.ns === query.ns && memory.id !== query.gold_ids[0])!.text,
      category: 'poison',
    }));
    const absent = QUERIES.map(({ ns, qid, query, ts }) => ({ ns, qid, query, ts }));
    const poisonedRun = await evalRun(poisoned, 'poisoned');
    const absentRun = await evalRun(absent, 'absent');
    expect(poisonedRun.run).toBe(honest.run);
    expect(absentRun.run).toBe(honest.run);
    // The scorer does read the gold: the poisoned file scores differently, the one without gold scores nothing.
    expect(poisonedRun.stdout).not.toBe(honest.stdout);
    expect(poisonedRun.stdout).toContain('| poison | 6 |');
    expect(absentRun.stdout).toContain('0 scored, 6 without gold ids');
  });

  it('hands the ranking objects with only qid, ns, query, ts and the line number', async () => {
    const queries = await readRankingQueries(fixture.queries);
    expect(queries).toHaveLength(QUERIES.length);
    for (const query of queries) expect(Object.keys(query).sort()).toEqual(['line', 'ns', 'qid', 'query', 'ts']);
    expect(queries[0]).toEqual({ line: 1, qid: 'q1', ns: 'alice', query: QUERIES[0]!.query, ts: Date.UTC(2023, 2, 10) });
    expect(queries[5]!.ts).toBeUndefined();
  });
});
