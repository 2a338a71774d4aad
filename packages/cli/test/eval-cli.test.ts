import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BLANK_LINE, EXPECTED_RUN, writeFixture } from './fixture.ts';
import { runCli } from './run-cli.ts';

const fixture = writeFixture();
afterAll(() => fixture.cleanup());

function readRun(file: string): unknown[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

const ndcgQ1 = 1 / Math.log2(3); // gold a4 at rank 2
const ndcgQ2 = (1 + 1 / Math.log2(4)) / (1 + 1 / Math.log2(3)); // gold a3, a2 at ranks 1 and 3

describe('zeromem eval, end to end as a child process (--embedder none)', () => {
  it('replays gzip and plain memories, writes the run and prints the metrics', { timeout: 120_000 }, async () => {
    const outGz = join(fixture.dir, 'out', 'run-gz.jsonl');
    const gz = await runCli(['eval', '--memories', fixture.memoriesGz, '--queries', fixture.queries, '--out', outGz, '--embedder', 'none', '--min-relevance', '0']); // 0: the old full pages, topped up
    expect(gz.code, gz.stderr).toBe(0);
    // Hits best first, the duplicate a4 right after a1, "b 3" mapped back, no id from another namespace.
    expect(readRun(outGz)).toEqual(EXPECTED_RUN);

    // The printed table: q5 has no gold ids; q6's gold id does not exist (all zeros).
    expect(gz.stdout).toContain('memories: 9 read, 7 stored, 1 duplicates kept as aliases, 0 repeated ids, 1 not stored');
    expect(gz.stdout).toContain('queries: 6 ranked, 5 scored, 1 without gold ids');
    const ndcgAll = ((ndcgQ1 + ndcgQ2 + 1 + 1 + 0) / 5).toFixed(3);
    expect(gz.stdout).toContain(`| all | 5 | 0.800 | 0.800 | 0.800 | 0.800 | ${ndcgAll} | 0.700 |`);
    expect(gz.stdout).toContain('| multi | 3 | 0.667 | 0.667 | 0.667 | 0.667 | 0.667 | 0.667 |');
    expect(gz.stdout).toContain(`| single | 2 | 1.000 | 1.000 | 1.000 | 1.000 | ${((ndcgQ1 + ndcgQ2) / 2).toFixed(3)} | 0.750 |`);
    expect(gz.stdout).toMatch(/time: total [\d.]+ s · store [\d.]+ s · embed wait [\d.]+ s · index build [\d.]+ s · recall mean [\d.]+ ms/);

    // The blank memory is reported loudly with its line; the duplicate and the encoded id are explained.
    expect(gz.stderr).toContain(`ERROR: 1 of 9 memories could not be stored`);
    expect(gz.stderr).toMatch(new RegExp(`line ${BLANK_LINE} \\(ns bob, id b4\\): INVALID_INPUT content: must not be empty or blank`));
    expect(gz.stderr).toContain('1 memories repeat the content of an earlier one');
    expect(gz.stderr).toContain('1 ids are not valid zeromem ids');

    const metrics = JSON.parse(readFileSync(`${outGz}.metrics.json`, 'utf8'));
    expect(metrics.counts).toMatchObject({ memoriesRead: 9, stored: 7, aliased: 1, notStored: 1, queries: 6, scored: 5, withoutGold: 1, untimed: 1 });
    expect(metrics.failures).toEqual([expect.objectContaining({ line: BLANK_LINE, id: 'b4', code: 'INVALID_INPUT' })]);
    expect(metrics.metrics.overall.MRR).toBeCloseTo(0.7, 12);
    expect(metrics.metrics.perCategory.single['NDCG@10']).toBeCloseTo((ndcgQ1 + ndcgQ2) / 2, 12);

    // Plain JSONL gives the same run; with --strict the unstored memory means exit code 1.
    const outPlain = join(fixture.dir, 'run-plain.jsonl');
    const plain = await runCli(['eval', '--memories', fixture.memories, '--queries', fixture.queries, '--out', outPlain, '--embedder', 'none', '--min-relevance', '0', '--strict']);
    expect(plain.code, plain.stderr).toBe(1);
    expect(plain.stderr).toContain('exit code 1: 1 memory could not be stored');
    expect(readFileSync(outPlain, 'utf8')).toBe(readFileSync(outGz, 'utf8'));
  });

  it('--limit-queries ranks and scores only the first queries; --k sets the least ids per query', { timeout: 120_000 }, async () => {
    const out = join(fixture.dir, 'run-limited.jsonl');
    const run = await runCli([
      'eval', '--memories', fixture.memories, '--queries', fixture.queries, '--out', out,
      '--embedder', 'none', '--limit-queries', '2', '--k', '12', '--weights', 'text=1,vector=0.5', '--min-relevance', '0',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(readRun(out)).toEqual(EXPECTED_RUN.slice(0, 2));
    expect(run.stdout).toContain('ranked ids per query: 12 · weights: text=1,vector=0.5');
    expect(run.stdout).toContain('| all | 2 |');
    // Each query is also asked in another namespace of the set; the relevance file holds both answers.
    expect(run.stdout).toMatch(/foreign queries \(each asked in another namespace of the set\): \d+\.\d% \(\d+\/2\) answered with no hits; best relevance own vs foreign: AUC [01]\.\d{3}/);
    const relevance = readFileSync(`${out}.relevance.jsonl`, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(relevance.map((line: { qid: string }) => line.qid)).toEqual(EXPECTED_RUN.slice(0, 2).map((line) => line.qid));
    for (const line of relevance) for (const [, value] of line.own) expect(value).toBeGreaterThanOrEqual(0);
    expect(JSON.parse(readFileSync(`${out}.metrics.json`, 'utf8')).separation).toBeGreaterThanOrEqual(0);
  });

  it('bad arguments exit with code 2 and say what is wrong', { timeout: 60_000 }, async () => {
    const run = await runCli(['eval', '--memories', fixture.memories, '--queries', fixture.queries, '--out', join(fixture.dir, 'x.jsonl'), '--k', 'ten']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--k must be a whole number from 1 to 1000, got "ten"');
    expect(run.stderr).toContain('Run "zeromem eval --help" for usage.');
    expect(existsSync(join(fixture.dir, 'x.jsonl'))).toBe(false);
  });

  it('the bin prints usage for --help and exits 2 on missing options', { timeout: 60_000 }, async () => {
    const help = await runCli(['eval', '--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: zeromem eval --memories <file> --queries <file> --out <run.jsonl>');
    const bad = await runCli(['eval', '--k', '5']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('missing --memories <file>, --queries <file>, --out <file>');
  });
});
