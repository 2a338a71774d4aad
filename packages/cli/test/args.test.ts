import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main, parseEvalArgs, parseWeights } from '../src/main.ts';
import { writeFixture } from './fixture.ts';

const fixture = writeFixture();
afterAll(() => fixture.cleanup());

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } });
  return { code, stdout, stderr };
}

const files = () => ['--memories', fixture.memories, '--queries', fixture.queries, '--out', join(fixture.dir, 'run.jsonl')];

describe('zeromem argument handling', () => {
  it.each([
    [[], 'zeromem: a command is required'],
    [['stats'], 'zeromem: unknown command "stats"'],
    [['check-import'], 'zeromem check-import: which file? zeromem check-import <file.jsonl|file.csv>'],
    [['check-import', 'a.jsonl', 'b.jsonl'], 'zeromem check-import: one file at a time, got 2'],
    [['check-import', 'no-such-file.jsonl'], 'zeromem check-import: file: no such file'],
    [['check-import', 'x', '--skip'], 'zeromem check-import: unknown option --skip'],
    [['eval'], 'missing --memories <file>, --queries <file>, --out <file>'],
    [['eval', '--memories', 'x.jsonl'], 'missing --queries <file>, --out <file>'],
    [['eval', '--bogus'], 'unknown option --bogus'],
    [['eval', '--memories'], '--memories needs a value'],
  ])('%j exits 2: %s', async (args, message) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('--help" for usage.');
  });

  it.each([
    [['--k', '0'], '--k must be a whole number from 1 to 1000, got "0"'],
    [['--k', '2.5'], '--k must be a whole number'],
    [['--k', '-3'], '--k needs a value; write --k=<value> for a value that starts with "-"'],
    [['--k=-3'], '--k must be a whole number from 1 to 1000, got "-3"'],
    [['--limit-queries', 'all'], '--limit-queries must be a whole number from 1 up, got "all"'],
    [['--weights', 'text'], '--weights: "text" is not key=number'],
    [['--weights', 'texture=1'], '--weights: unknown weight "texture"; known: text, vector, importance'],
    [['--weights', 'text=0,vector=0'], 'text and vector must not both be 0'],
    [['--weights', 'recency=-1'], 'recency must be a number, 0 or more'],
    [['--embedder', ''], '--embedder must be bundled, minilm, none, a model path or a model id'],
    [['stray'], 'unexpected argument "stray"'],
  ])('eval %j exits 2: %s', async (extra, message) => {
    const result = await run(['eval', ...files(), ...extra]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('missing input files and a directory as --out exit 2', async () => {
    const missing = await run(['eval', '--memories', join(fixture.dir, 'nope.jsonl'), '--queries', fixture.queries, '--out', join(fixture.dir, 'r.jsonl')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--memories: no such file: ${join(fixture.dir, 'nope.jsonl')}`);
    const dirOut = await run(['eval', '--memories', fixture.memories, '--queries', fixture.queries, '--out', fixture.dir]);
    expect(dirOut.code).toBe(2);
    expect(dirOut.stderr).toContain('is a directory');
    const sameFile = await run(['eval', '--memories', fixture.memories, '--queries', fixture.queries, '--out', fixture.queries]);
    expect(sameFile.code).toBe(2);
    expect(sameFile.stderr).toContain('--out must not be one of the input files');
  });

  it('--help prints the usage and exits 0', async () => {
    const top = await run(['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain('Usage: zeromem <command>');
    const evalHelp = await run(['eval', '--help']);
    expect(evalHelp.code).toBe(0);
    expect(evalHelp.stdout).toContain('--embedder <which>');
    expect(evalHelp.stdout).toContain('Exit codes: 0 done;');
  });

  it('parses every option', () => {
    const parsed = parseEvalArgs([...files(), '--k', '25', '--embedder', 'none', '--weights', 'text=0.6, vector=0.4,halfLifeMs=1000', '--limit-queries', '3']);
    expect(parsed).toMatchObject({ k: 25, embedder: { kind: 'none' }, weights: { text: 0.6, vector: 0.4, halfLifeMs: 1000 }, limitQueries: 3, strict: false });
    expect(parseEvalArgs(files())).toMatchObject({ k: 10, embedder: { kind: 'bundled' } });
    expect(parseEvalArgs([...files(), '--embedder', 'Xenova/all-MiniLM-L6-v2'])).toMatchObject({ embedder: { kind: 'model', model: 'Xenova/all-MiniLM-L6-v2' } });
    expect(parseEvalArgs([...files(), '--embedder', fixture.dir])).toMatchObject({ embedder: { kind: 'path', path: fixture.dir } });
    expect(parseWeights('text=1')).toEqual({ text: 1 });
    expect(() => parseWeights('text=1,text=2')).toThrow('text is given twice');
  });
});
