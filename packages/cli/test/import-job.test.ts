import { existsSync, readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../src/jobs/open-store.ts';
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

// Issue 33 item 2: `zeromem import` refused the CLI's own export ("format: unknown field"),
// while check-import, importJsonl() and POST /v1/import read it. One reader now: an export
// is detected from its header and read by core's importJsonl, every field kept.
describe('zeromem import reads what zeromem export writes', () => {
  /** The export without its time of export (the one byte range a second export must differ in). */
  const timeless = (text: string) => text.replace(/"exportedAt":\d+/, '"exportedAt":0');

  /** A store of user "gen" with what an export carries: namespaces, tags, metadata, times, a keyed fact with an earlier version. */
  async function generated(): Promise<{ dir: string; file: string; text: string }> {
    const dir = home();
    const seed = join(dir, 'seed.jsonl');
    const lines = [
      { namespace: { userId: 'gen' }, content: 'Prefers phone calls', tags: ['contact'], createdAt: '2026-03-01T09:00:00Z' },
      { namespace: { userId: 'gen', agentId: 'sales' }, content: 'Asked for the spring catalogue', metadata: { channel: 'mail', n: 2 }, importance: 0.8 },
      { namespace: { userId: 'gen' }, key: 'home.city', content: 'Lives in Lyon', validFrom: '2026-01-01T00:00:00Z' },
      { namespace: { userId: 'gen' }, key: 'home.city', content: 'Lives in Porto', validFrom: '2026-02-01T00:00:00Z' },
      { namespace: { userId: 'gen', scope: 'q3' }, content: '用户偏好圆通快递', tags: ['物流'] },
    ];
    writeFileSync(seed, lines.map((line) => JSON.stringify(line)).join('\n'));
    const stored = await runBuilt(['import', seed], dir);
    expect(stored.code, stored.stderr).toBe(0);
    const file = join(dir, 'gen.jsonl');
    const run = await runBuilt(['export', '--user', 'gen', '--out', file], dir);
    expect(run.code, run.stderr).toBe(0);
    return { dir, file, text: readFileSync(file, 'utf8') };
  }

  /** The same user exported again from another store. */
  async function exportedAgain(dir: string, storeDir: string): Promise<string> {
    const out = join(dir, `again-${Math.random().toString(36).slice(2)}.jsonl`);
    const run = await runBuilt(['export', '--user', 'gen', '--out', out, '--dir', storeDir], dir);
    expect(run.code, run.stderr).toBe(0);
    return readFileSync(out, 'utf8');
  }

  it('export → import → export gives the same file (but for exportedAt) through the CLI, plain or gzipped, the SDK and REST', { timeout: 300_000 }, async () => {
    const { dir, file, text } = await generated();
    const records = text.trimEnd().split('\n').length - 1;
    expect(records).toBe(5);

    // The CLI, the issue's exact commands.
    const imported = await runBuilt(['import', file, '--dir', join(dir, 'newstore')], dir);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.summary).toMatchObject({ ok: true, format: 'zeromem-export', items: records, stored: records, duplicates: 0, failed: 0, report: null });
    expect(timeless(await exportedAgain(dir, join(dir, 'newstore')))).toBe(timeless(text));
    // Again into the same store: every record found again, none copied.
    expect((await runBuilt(['import', file, '--dir', join(dir, 'newstore')], dir)).summary).toMatchObject({ ok: true, stored: 0, duplicates: records });
    // Gzipped, in batches of one record.
    writeFileSync(`${file}.gz`, gzipSync(text));
    const gz = await runBuilt(['import', `${file}.gz`, '--dir', join(dir, 'gzstore'), '--batch', '1'], dir);
    expect(gz.summary).toMatchObject({ ok: true, stored: records });
    expect(timeless(await exportedAgain(dir, join(dir, 'gzstore')))).toBe(timeless(text));

    // The SDK: importJsonl of the CLI's file, exported again by the CLI.
    const sdk = await openStore({ directory: join(dir, 'sdkstore'), name: 'zeromem' });
    try {
      expect(await sdk.importJsonl(text)).toMatchObject({ imported: records, failed: 0 });
    } finally {
      await sdk.close();
    }
    expect(timeless(await exportedAgain(dir, join(dir, 'sdkstore')))).toBe(timeless(text));

    // REST: POST /v1/import to `zeromem serve`, exported again by GET and by the CLI.
    const restDir = join(dir, 'reststore');
    const serve = startBuilt(['serve', '--port', '0', '--embedder', 'none', '--dir', restDir], dir);
    let out = '';
    serve.child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    for (let i = 0; i < 2400 && !/token: \S+\n/.test(out); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    const url = /listening on (\S+)/.exec(out)![1]!;
    const headers = { authorization: `Bearer ${/token: (\S+)\n/.exec(out)![1]!}` };
    try {
      const posted = await fetch(`${url}/v1/import`, { method: 'POST', headers: { ...headers, 'content-type': 'application/x-ndjson' }, body: text });
      expect(await posted.json()).toMatchObject({ imported: records, failed: 0 });
      const got = await fetch(`${url}/v1/users/gen/export`, { headers });
      expect(timeless(await got.text())).toBe(timeless(text));
    } finally {
      serve.child.kill('SIGTERM');
      await serve.done;
    }
    expect(timeless(await exportedAgain(dir, restDir))).toBe(timeless(text));
  });

  it('check-import and import say the same of every file: the same bad lines, the same counts', { timeout: 300_000 }, async () => {
    const { dir, text } = await generated();
    const lines = text.trimEnd().split('\n');
    const files: Record<string, string> = {
      'export.jsonl': text,
      // An export with a bad record (importance 5), a line that is not JSON, and a record count that is off.
      'broken-export.jsonl': [lines[0], lines[1]!.replace(/"importance":[\d.]+/, '"importance":5'), '{"record":', ...lines.slice(2)].join('\n'),
      'truncated-export.jsonl': lines.slice(0, 3).join('\n'),
      'not-an-export-header.jsonl': [lines[0]!.replace('"version":1', '"version":7'), ...lines.slice(1)].join('\n'),
      'memories.jsonl': ['{"namespace":{"userId":"u1"},"content":"Plays the cello"}', '{"ns":"u1","id":"x","text":"hello"}', 'not json', '{"userId":"u1","content":"Lives in Porto"}'].join('\n'),
      'memories.csv': 'content,userId,tags\nLikes tea,u1,drink|morning\n,u1,\n"Two\nlines",u1,\n',
    };
    for (const [name, content] of Object.entries(files)) {
      const file = join(dir, name);
      writeFileSync(file, content);
      const check = await runBuilt(['check-import', file], dir);
      const store = join(dir, `store-${name}`);
      const imported = await runBuilt(['import', file, '--dir', store], dir);
      // What check-import lists on stderr is what import's failure report holds.
      const checked = check.stderr.split('\n').filter((line) => line.startsWith('line ')).map((line) => /^line (\d+): (\S+)/.exec(line)!.slice(1).join(' '));
      const reported = imported.summary.report ? readFileSync(imported.summary.report, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line)).map((f) => `${f.line} ${f.code}`) : [];
      if (imported.code === 2) {
        // A header core cannot read: both refuse the file, and import writes nothing.
        expect(check.code, name).toBe(1);
        expect(check.stderr, name).toContain('line 1 is not a zeromem export header');
        expect(imported.summary.error.message, name).toContain('line 1 is not a zeromem export header');
        continue;
      }
      expect(checked, name).toEqual(reported);
      expect(check.code, name).toBe(imported.code);
      const counts = /records: (\d+) imported, (\d+) duplicates, (\d+) expired \(skipped\), (\d+) bad lines/.exec(check.stdout)!.slice(1).map(Number);
      expect(counts, name).toEqual([imported.summary.stored, imported.summary.duplicates, imported.summary.expired, imported.summary.failed]);
    }
    // The expected verdicts, so the comparison above is not vacuous.
    const broken = await runBuilt(['check-import', join(dir, 'broken-export.jsonl')], dir);
    expect(broken.stderr).toContain('line 2: INVALID_INPUT record.importance: must be a number from 0 to 1, got 5');
    expect(broken.stderr).toMatch(/line 3: INVALID_INPUT is not valid JSON/);
    expect(broken.stderr).toMatch(/line 1: INVALID_INPUT records: the header announces 5 record lines, the file has 6/);
    expect((await runBuilt(['check-import', join(dir, 'truncated-export.jsonl')], dir)).stdout).toContain('records: 2 imported, 0 duplicates, 0 expired (skipped), 1 bad lines');
    expect((await runBuilt(['check-import', join(dir, 'memories.jsonl')], dir)).stderr).toMatch(/line 2: NAMESPACE_REQUIRED ns: unknown/);
  });
});
