import { existsSync, readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runBuilt, startBuilt, tempHome } from './built-cli.ts';

// `zeromem import` as users run it: the built bin under plain node, on a temp ZEROMEM_HOME,
// stdout and stderr piped (not a terminal): progress lines on stderr, one JSON line on stdout.

let homes: Array<{ dispose(): void }> = [];
afterEach(() => {
  for (const h of homes) h.dispose();
  homes = [];
});
function home(): string {
  const h = tempHome();
  homes.push(h);
  return h.home;
}

/** The records of user `userId` as the CLI exports them. */
async function exported(dir: string, userId: string): Promise<Array<{ id: string; content: string; tags: string[]; metadata: Record<string, unknown> }>> {
  const out = join(dir, `${userId}.export.jsonl`);
  const run = await runBuilt(['export', '--user', userId, '--out', out], dir);
  expect(run.code, run.stderr).toBe(0);
  return readFileSync(out, 'utf8').trimEnd().split('\n').slice(1).map((line) => JSON.parse(line).record);
}

/** n memory lines; every 250th line (from line 100) is not a memory: blank content, so core refuses it. */
function bigJsonl(n: number): { text: string; bad: number[] } {
  const lines: string[] = [];
  const bad: number[] = [];
  for (let i = 1; i <= n; i++) {
    if (i % 250 === 100) {
      lines.push(JSON.stringify({ namespace: { userId: 'u1' }, content: '   ' }));
      bad.push(i);
    } else lines.push(JSON.stringify({ namespace: { userId: 'u1' }, content: `Fact ${i}: the customer mentioned item ${i}`, tags: [`t${i % 3}`] }));
  }
  return { text: `${lines.join('\n')}\n`, bad };
}

describe('zeromem import', () => {
  it('stores JSONL in batches, reports failed items by line with their codes, and prints progress and a JSON summary', { timeout: 180_000 }, async () => {
    const dir = home();
    const file = join(dir, 'notes.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({ namespace: { userId: 'u1' }, content: 'Prefers phone calls', tags: ['contact'] }),
        '{"namespace": {"userId": "u1"}, "content": ',
        '',
        JSON.stringify({ userId: 'u1', agentId: 'sales', content: 'Asked for the spring catalogue', id: 'c-1' }),
        JSON.stringify({ content: 'No namespace here' }),
        JSON.stringify({ namespace: { userId: 'u1' }, content: 'x', importance: 7 }),
        '[1, 2]',
        JSON.stringify({ namespace: { userId: 'u1' }, content: 'Lives in Lyon', metadata: { city: 'Lyon' } }),
      ].join('\n'),
    );
    const run = await runBuilt(['import', file, '--batch', '2'], dir);
    expect(run.code).toBe(1); // finished, with failed items
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(run.summary).toMatchObject({ ok: false, command: 'import', format: 'jsonl', items: 7, stored: 3, duplicates: 0, failed: 4, interrupted: false, report: `${file}.failures.jsonl` });
    expect(run.stderr).toMatch(/^import \[.*\] \d+% \| .* of .* \| .* items, .* failed \| ETA /m);
    expect(run.stderr).toMatch(/100% .* 7 items, 4 failed/);
    const report = readFileSync(`${file}.failures.jsonl`, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(report.map((f) => [f.line, f.code])).toEqual([
      [2, 'INVALID_INPUT'],
      [5, 'NAMESPACE_REQUIRED'],
      [6, 'INVALID_INPUT'],
      [7, 'INVALID_INPUT'],
    ]);
    expect(report[0].item).toBe('{"namespace": {"userId": "u1"}, "content": ');
    expect(report[2]).toMatchObject({ item: { content: 'x', importance: 7 }, issues: [{ path: 'importance' }] });
    const records = await exported(dir, 'u1');
    expect(records.map((r) => r.content).sort()).toEqual(['Asked for the spring catalogue', 'Lives in Lyon', 'Prefers phone calls']);
    expect(records.find((r) => r.content === 'Asked for the spring catalogue')!.id).toBe('c-1');
    expect(records.find((r) => r.content === 'Prefers phone calls')!.id).toMatch(/^i:[0-9a-f]{32}$/);
    // Done: no checkpoint is left, and importing again stores nothing twice.
    expect(readdirSync(join(dir, 'jobs'))).toEqual([]);
    const again = await runBuilt(['import', file], dir);
    expect(again.summary).toMatchObject({ items: 7, stored: 0, duplicates: 3, failed: 4 });
    expect(await exported(dir, 'u1')).toHaveLength(3);
  });

  it('reads CSV with a header (quoted fields over several lines, tags, metadata.<key>), and reports rows it cannot read', { timeout: 180_000 }, async () => {
    const dir = home();
    const file = join(dir, 'crm.csv');
    writeFileSync(
      file,
      [
        'content,userId,tags,metadata.city,importance,createdAt',
        '"Said ""call me after 6"",\nnot before",u1,contact|hours,Lyon,0.8,2024-03-01T10:00:00Z',
        'Too,many,fields,here,0.1,x,y',
        'Lives in Lyon,u1,,Lyon,,',
        'Blank importance is left out,u2,a,,,',
        'Bad importance,u2,,,high,',
      ].join('\n'),
    );
    const run = await runBuilt(['import', file], dir);
    expect(run.summary).toMatchObject({ format: 'csv', items: 5, stored: 3, failed: 2 });
    const report = readFileSync(`${file}.failures.jsonl`, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(report.map((f) => [f.line, f.code])).toEqual([
      [4, 'INVALID_INPUT'],
      [7, 'INVALID_INPUT'],
    ]);
    expect(report[0].item).toBe('Too,many,fields,here,0.1,x,y');
    const u1 = await exported(dir, 'u1');
    const said = u1.find((r) => r.content.startsWith('Said'))!;
    expect(said).toMatchObject({ content: 'Said "call me after 6",\nnot before', tags: ['contact', 'hours'], metadata: { city: 'Lyon' }, importance: 0.8, createdAt: Date.parse('2024-03-01T10:00:00Z') });
    expect((await exported(dir, 'u2')).map((r) => r.content)).toEqual(['Blank importance is left out']);
  });

  it('refuses invalid arguments and files with coded errors and writes nothing', { timeout: 180_000 }, async () => {
    const dir = home();
    writeFileSync(join(dir, 'ok.jsonl'), `${JSON.stringify({ namespace: { userId: 'u1' }, content: 'hello' })}\n`);
    writeFileSync(join(dir, 'odd.csv'), 'content,userId,colour\nhello,u1,red\n');
    writeFileSync(join(dir, 'notes.txt'), 'hello\n');
    const cases: Array<[string[], string, RegExp]> = [
      [['import'], 'INVALID_INPUT', /which file/],
      [['import', 'missing.jsonl'], 'NOT_FOUND', /no such file/],
      [['import', 'ok.jsonl', '--batch', '0'], 'INVALID_INPUT', /--batch must be a whole number from 1 to 10000/],
      [['import', 'ok.jsonl', '--bogus'], 'INVALID_INPUT', /unknown option --bogus/],
      [['import', 'ok.jsonl', '--agent', 'a'], 'INVALID_INPUT', /--agent and --scope need --user/],
      [['import', 'notes.txt'], 'INVALID_INPUT', /--format jsonl or --format csv/],
      [['import', 'ok.jsonl', '--format', 'xml'], 'INVALID_INPUT', /--format must be jsonl or csv/],
      [['import', 'odd.csv'], 'INVALID_INPUT', /unknown CSV column "colour"/],
    ];
    for (const [args, code, message] of cases) {
      const run = await runBuilt(args, dir);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.summary).toMatchObject({ ok: false, command: 'import', error: { code } });
      expect(run.summary.error.message).toMatch(message);
      expect(run.stderr).toContain(`zeromem import: ${code}: `);
    }
    const inspect = await runBuilt(['inspect', '--json'], dir);
    expect(inspect.summary).toMatchObject({ ok: true, records: 0, namespaces: 0 });
  });

  for (const signal of ['SIGKILL', 'SIGINT'] as const) {
    it(`continues after ${signal} mid-way: every item stored exactly once, every failure reported once`, { timeout: 180_000 }, async () => {
      const dir = home();
      const file = join(dir, 'big.jsonl');
      const { text, bad } = bigJsonl(4000);
      writeFileSync(file, text);
      const checkpoints = join(dir, 'jobs');
      const first = startBuilt(['import', file, '--batch', '100'], dir);
      // Wait until some batches have committed, then stop it.
      let committed = 0;
      for (let i = 0; i < 2400 && committed < 500; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        const [name] = existsSync(checkpoints) ? readdirSync(checkpoints).filter((f) => f.endsWith('.json')) : [];
        if (name) committed = JSON.parse(readFileSync(join(checkpoints, name), 'utf8')).units;
      }
      first.child.kill(signal);
      const stopped = await first.done;
      const [name] = readdirSync(checkpoints).filter((f) => f.endsWith('.json'));
      const checkpoint = JSON.parse(readFileSync(join(checkpoints, name!), 'utf8'));
      expect(checkpoint.units % 100).toBe(0); // only whole batches are committed
      expect(checkpoint.units).toBeLessThan(4000);
      if (signal === 'SIGINT') {
        // Ctrl-C: the batch in flight commits, the checkpoint says so, the summary tells how to go on.
        expect(stopped.code).toBe(130);
        expect(stopped.summary).toMatchObject({ ok: false, interrupted: true, items: checkpoint.units, checkpoint: join(checkpoints, name!) });
        expect(stopped.stderr).toMatch(/stopped after line \d+ \(SIGINT\); run the same command again to continue/);
      } else expect(stopped.signal).toBe('SIGKILL');

      const rerun = await runBuilt(['import', file, '--batch', '100'], dir);
      expect(rerun.code, rerun.stderr).toBe(1); // the bad lines
      expect(rerun.summary).toMatchObject({ items: 4000, failed: bad.length, interrupted: false, resumedAfterLine: checkpoint.line });
      expect(rerun.stderr).toContain(`continuing after line ${checkpoint.line}`);
      // stored + duplicates of both runs: after SIGKILL at most the one batch whose checkpoint was not written is sent twice.
      expect(rerun.summary.stored + rerun.summary.duplicates).toBe(4000 - bad.length);
      expect(rerun.summary.duplicates).toBeLessThanOrEqual(signal === 'SIGINT' ? 0 : 100);

      const records = await exported(dir, 'u1');
      const contents = records.map((r) => r.content);
      expect(new Set(contents).size).toBe(contents.length);
      expect(contents.length).toBe(4000 - bad.length);
      const report = readFileSync(`${file}.failures.jsonl`, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line));
      expect(report.map((f) => f.line)).toEqual(bad);
      expect(readdirSync(checkpoints).filter((f) => f.endsWith('.json'))).toEqual([]);
    });
  }

  it('will not continue a checkpoint on a changed file, unless --restart', { timeout: 180_000 }, async () => {
    const dir = home();
    const file = join(dir, 'big.jsonl');
    writeFileSync(file, bigJsonl(3000).text);
    const first = startBuilt(['import', file, '--batch', '100'], dir);
    for (let i = 0; i < 2400 && !(existsSync(join(dir, 'jobs')) && readdirSync(join(dir, 'jobs')).some((f) => f.endsWith('.json'))); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    first.child.kill('SIGKILL');
    await first.done;
    writeFileSync(file, bigJsonl(3001).text);
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const refused = await runBuilt(['import', file], dir);
    expect(refused.code).toBe(2);
    expect(refused.summary.error).toMatchObject({ code: 'CONFLICT' });
    expect(refused.summary.error.message).toMatch(/file changed .* --restart/);
    const restarted = await runBuilt(['import', file, '--restart'], dir);
    expect(restarted.summary).toMatchObject({ items: 3001, resumedAfterLine: null });
    expect((await exported(dir, 'u1')).length).toBe(restarted.summary.stored + restarted.summary.duplicates);
  });
});
