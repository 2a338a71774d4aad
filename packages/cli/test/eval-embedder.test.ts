import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runEval } from '../src/eval/run-eval.ts';
import { hashingEmbedder } from '../../../test/kit/hashing-embedder.ts';
import { EXPECTED_RUN, writeFixture } from './fixture.ts';

const fixture = writeFixture();
afterAll(() => fixture.cleanup());

const sink = () => {
  let text = '';
  return { write: (chunk: string) => (text += chunk), get text() { return text; } };
};

describe('zeromem eval with an embedder (a stand-in for @zeromem/embed-transformers)', () => {
  it('waits for every embedding, then recalls with vectors', { timeout: 60_000 }, async () => {
    let calls = 0;
    const embedder = hashingEmbedder({ dimension: 32, onEmbed: () => calls++ });
    const out = join(fixture.dir, 'run-vectors.jsonl');
    const stderr = sink();
    const code = await runEval({
      memories: fixture.memories,
      queries: fixture.queries,
      out,
      k: 10,
      embedder: { kind: 'bundled' },
      minRelevance: 0, // every candidate: what the vectors reach
      stdout: sink(),
      stderr,
      loadEmbedderModule: async () => ({ createEmbedderFromChoice: async () => embedder }),
    });
    expect(code).toBe(0);
    expect(calls).toBeGreaterThan(0);
    expect(stderr.text).toContain('embedded everything');
    const metrics = JSON.parse(readFileSync(`${out}.metrics.json`, 'utf8'));
    expect(metrics.counts.vectorModes).toEqual({ used: 6 });
    expect(metrics.counts.toppedUp).toBe(0); // vector candidates cover the whole (small) namespace
    const run = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    // Same ids per query as the lexical run (every memory of the namespace), possibly in another order.
    expect(run.map((line: { ranked_ids: string[] }) => [...line.ranked_ids].sort())).toEqual(EXPECTED_RUN.map((line) => [...line.ranked_ids].sort()));
    expect(run[0].ranked_ids.slice(0, 2)).toEqual(['a1', 'a4']);
  });

  it('a failing embedder ends the run with a clear error instead of waiting forever', { timeout: 60_000 }, async () => {
    await expect(
      runEval({
        memories: fixture.memories,
        queries: fixture.queries,
        out: join(fixture.dir, 'run-failing.jsonl'),
        k: 10,
        embedder: { kind: 'bundled' },
                stdout: sink(),
        stderr: sink(),
        loadEmbedderModule: async () => ({ createEmbedderFromChoice: async () => hashingEmbedder({ dimension: 32, failWith: 'the model fell over' }) }),
      }),
    ).rejects.toThrow(/the embedder failed while embedding the memories \(7 left\): .*the model fell over/);
  });
});
