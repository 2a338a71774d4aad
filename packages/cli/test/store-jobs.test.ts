import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../src/jobs/open-store.ts';
import { main } from '../src/main.ts';
import { runBuilt, startBuilt, tempHome } from './built-cli.ts';

// The store jobs besides import (export, inspect, forget-user, sweep, retier, consolidate,
// reindex), as users run them: the built bin under plain node on a temp ZEROMEM_HOME.

let homes: Array<{ dispose(): void }> = [];
afterEach(() => {
  for (const h of homes) h.dispose();
  homes = [];
});
async function storeWith(lines: object[]): Promise<string> {
  const h = tempHome();
  homes.push(h);
  const file = join(h.home, 'seed.jsonl');
  writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n'));
  const run = await runBuilt(['import', file], h.home);
  expect(run.code, run.stderr).toBe(0);
  return h.home;
}

const SEED = [
  { namespace: { userId: 'u1' }, content: 'Likes green tea.', tags: ['food'] },
  { namespace: { userId: 'u1' }, content: 'likes green tea', tags: ['food'] },
  { namespace: { userId: 'u1', agentId: 'sales' }, content: 'Asked for the spring catalogue', tags: ['food', 'sales'] },
  { namespace: { userId: 'u2' }, content: 'Plays the cello', tags: ['music'] },
];

describe('job help', () => {
  it.each(['import', 'export', 'inspect', 'forget-user', 'reindex', 'sweep', 'retier', 'consolidate'])('zeromem %s --help prints its usage and exits 0', async (command) => {
    let stdout = '';
    const code = await main([command, '--help'], { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: () => true } });
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^Usage: zeromem ${command}`));
  });
});

describe('zeromem export, inspect, forget-user', () => {
  it('inspect counts records, bytes, namespaces and top tags; export writes a versioned JSONL file', { timeout: 180_000 }, async () => {
    const dir = await storeWith(SEED);
    const inspect = await runBuilt(['inspect', '--json', '--top', '2'], dir);
    expect(inspect.code).toBe(0);
    expect(inspect.summary).toMatchObject({
      ok: true,
      command: 'inspect',
      namespaces: 3,
      users: 2,
      records: 4,
      contentBytes: 16 + 15 + 30 + 15,
      topTags: [
        { tag: 'food', count: 3 },
        { tag: 'music', count: 1 },
      ],
      store: { file: join(dir, 'zeromem.sqlite') },
    });
    expect(inspect.summary.store.bytes).toBeGreaterThan(0);
    expect(inspect.summary.byNamespace.map((n: { key: string; count: number }) => [n.key, n.count])).toEqual([
      ['u=u1', 2],
      ['u=u1;a=sales', 1],
      ['u=u2', 1],
    ]);
    expect((await runBuilt(['inspect', '--json', '--user', 'u2'], dir)).summary).toMatchObject({ namespaces: 1, records: 1 });
    // --dir and --name pick another store than $ZEROMEM_HOME's zeromem.sqlite.
    const other = await runBuilt(['inspect', '--json', '--dir', join(dir, 'other'), '--name', 'crm'], dir);
    expect(other.summary).toMatchObject({ ok: true, records: 0, store: { file: join(dir, 'other', 'crm.sqlite') } });

    const out = join(dir, 'u1.jsonl');
    const exported = await runBuilt(['export', '--user', 'u1', '--out', out], dir);
    expect(exported.summary).toMatchObject({ ok: true, records: 3, scope: { userId: 'u1' } });
    const [header, ...records] = readFileSync(out, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(header).toMatchObject({ records: 3, scope: { userId: 'u1' } });
    expect(records.map((r) => r.record.content).sort()).toEqual(['Asked for the spring catalogue', 'Likes green tea.', 'likes green tea']);
    const one = await runBuilt(['export', '--user', 'u1', '--agent', 'sales', '--out', out], dir);
    expect(one.summary).toMatchObject({ records: 1, scope: { namespace: { userId: 'u1', agentId: 'sales' } } });
    const missing = await runBuilt(['export', '--out', out], dir);
    expect([missing.code, missing.summary.error.code]).toEqual([2, 'INVALID_INPUT']);
  });

  it('inspect prints a summary for people by default', { timeout: 180_000 }, async () => {
    const dir = await storeWith(SEED);
    const inspect = await runBuilt(['inspect', '--top', '2'], dir);
    expect(inspect.code).toBe(0);
    const lines = inspect.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${join(dir, 'zeromem.sqlite').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(\\d+(\\.\\d)? [kM]?B\\)$`));
    expect(lines[1]).toBe('4 records in 3 namespaces of 2 users, 76 B of text');
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}u=u1;a=sales +1 records +30 B +\d{4}-\d\d-\d\d \.\. \d{4}-\d\d-\d\d {2}\(long_term 1\)$/));
    expect(lines).toContain('top tags: food 3, music 1');
    expect(lines.at(-1)).toBe('zeromem inspect --json prints all of it as one JSON line.');
  });

  it('inspect shows each namespace\'s profile, the current fact per key with its day; the export keeps every version and its interval', { timeout: 180_000 }, async () => {
    const dir = await storeWith([
      { namespace: { userId: 'u1' }, key: 'contact.channel', content: 'Prefers phone calls', createdAt: '2026-03-03T09:00:00Z' },
      { namespace: { userId: 'u1' }, key: 'contact.channel', content: 'Prefers e-mail', createdAt: '2026-03-04T09:00:00Z' },
      { namespace: { userId: 'u1' }, key: 'home.city', content: 'Lives in\nPorto', createdAt: '2026-03-01T09:00:00Z' },
      { namespace: { userId: 'u1' }, content: 'Plays the cello' },
      { namespace: { userId: 'u2' }, key: 'phone.plan', content: 'x'.repeat(100), validFrom: '2025-12-31T23:00:00Z' },
    ]);
    const inspect = await runBuilt(['inspect'], dir);
    expect(inspect.code, inspect.stderr).toBe(0);
    const lines = inspect.stdout.trimEnd().split('\n');
    const u1 = lines.findIndex((line) => /^ {2}u=u1 /.test(line));
    expect(lines.slice(u1 + 1, u1 + 3)).toEqual(['    contact.channel: Prefers e-mail (since 2026-03-04)', '    home.city: Lives in Porto (since 2026-03-01)']);
    expect(lines).toContain(`    phone.plan: ${'x'.repeat(79)}… (since 2025-12-31)`);
    expect(inspect.stdout).not.toContain('Prefers phone calls');
    const json = await runBuilt(['inspect', '--json', '--user', 'u1'], dir);
    expect(json.summary.byNamespace[0].profile).toEqual([
      { key: 'contact.channel', content: 'Prefers e-mail', id: expect.any(String), validFrom: Date.UTC(2026, 2, 4, 9) },
      { key: 'home.city', content: 'Lives in\nPorto', id: expect.any(String), validFrom: Date.UTC(2026, 2, 1, 9) },
    ]);

    // The export carries every version with its interval; imported into another store, the profile and the history are the same.
    const out = join(dir, 'u1.jsonl');
    expect((await runBuilt(['export', '--user', 'u1', '--out', out], dir)).summary).toMatchObject({ ok: true, records: 4 });
    const records = readFileSync(out, 'utf8').trimEnd().split('\n').slice(1).map((line) => JSON.parse(line).record);
    const phone = records.find((r) => r.content === 'Prefers phone calls');
    const email = records.find((r) => r.content === 'Prefers e-mail');
    expect(phone).toMatchObject({ key: 'contact.channel', validFrom: Date.UTC(2026, 2, 3, 9), validUntil: Date.UTC(2026, 2, 4, 9), closedBy: email.id });
    const check = await runBuilt(['check-import', out], dir);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toContain('records: 4 imported');
    const other = tempHome();
    homes.push(other);
    const store = await openStore({ directory: other.home, name: 'zeromem' });
    try {
      expect((await store.importJsonl(readFileSync(out, 'utf8'))).imported).toBe(4);
      expect(await store.get({ userId: 'u1' }, phone.id)).toMatchObject({ validUntil: Date.UTC(2026, 2, 4, 9), closedBy: email.id });
    } finally {
      await store.close();
    }
    expect((await runBuilt(['inspect', '--json'], other.home)).summary.byNamespace[0].profile).toEqual(json.summary.byNamespace[0].profile);
  });

  it('export without --out writes the export to stdout and its summary to stderr', { timeout: 180_000 }, async () => {
    const dir = await storeWith(SEED);
    const run = await runBuilt(['export', '--user', 'u1'], dir);
    expect(run.code, run.stderr).toBe(0);
    const [header, ...records] = run.stdout.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(header).toMatchObject({ records: 3, scope: { userId: 'u1' } });
    expect(records).toHaveLength(3);
    expect(JSON.parse(run.stderr.trimEnd().split('\n').at(-1)!)).toMatchObject({ ok: true, command: 'export', out: '-', records: 3 });
  });

  it('export of a user without memories is NOT_FOUND and writes nothing; forget-user of one warns', { timeout: 180_000 }, async () => {
    const dir = await storeWith(SEED);
    const out = join(dir, 'nobody.jsonl');
    const none = await runBuilt(['export', '--user', 'nobody', '--out', out], dir);
    expect([none.code, none.summary.ok, none.summary.error?.code]).toEqual([2, false, 'NOT_FOUND']);
    expect(none.stderr).toContain('user "nobody" has no memories in');
    expect(existsSync(out)).toBe(false);
    const forget = await runBuilt(['forget-user', 'nobody', '--yes'], dir);
    expect(forget.code).toBe(0);
    expect(forget.stderr).toContain('forget-user: warning: no memories of "nobody"');
    expect(forget.summary).toMatchObject({ ok: true, forgotten: 0, warning: expect.stringContaining('check the user id') });
    expect((await runBuilt(['forget-user', 'u1', '--yes'], dir)).summary.warning).toBeUndefined();
  });

  it('forget-user only counts without --yes, and with it deletes all of the user\'s namespaces', { timeout: 180_000 }, async () => {
    const dir = await storeWith(SEED);
    const dry = await runBuilt(['forget-user', 'u1'], dir);
    expect(dry.summary).toMatchObject({ ok: true, dryRun: true, records: 3 });
    expect(dry.stderr).toContain('pass --yes');
    expect((await runBuilt(['inspect', '--json'], dir)).summary.records).toBe(4);
    const real = await runBuilt(['forget-user', 'u1', '--yes'], dir);
    expect(real.summary).toMatchObject({ ok: true, dryRun: false, forgotten: 3 });
    expect((await runBuilt(['inspect', '--json'], dir)).summary).toMatchObject({ records: 1, users: 1 });
    expect((await runBuilt(['forget-user'], dir)).code).toBe(2);
  });

  it('a job runs while another process has the store open, and that process sees what the job did', { timeout: 180_000 }, async () => {
    const dir = await storeWith(SEED);
    const holder = await openStore({ name: 'zeromem', directory: dir });
    try {
      expect(await holder.count({ userId: 'u1' })).toBe(2);
      const run = await runBuilt(['forget-user', 'u1', '--yes'], dir);
      expect(run.code).toBe(0);
      expect(run.summary).toMatchObject({ ok: true, forgotten: 3 });
      expect(await holder.count({ userId: 'u1' })).toBe(0);
      expect(await holder.count({ userId: 'u1', agentId: 'sales' })).toBe(0);
      expect(await holder.count({ userId: 'u2' })).toBe(1);
    } finally {
      await holder.close();
    }
  });
});

describe('zeromem sweep, retier, consolidate (one pass each, for a schedule)', () => {
  it('sweep deletes expired records, retier ages them, consolidate merges near-duplicates (dry run first)', { timeout: 180_000 }, async () => {
    const dir = await storeWith([...SEED, { namespace: { userId: 'u2' }, content: 'Promo code SPRING', ttl: '1s' }]);
    // Wait (without a time limit on the job itself) until the promo has expired.
    for (let i = 0; i < 100 && (await runBuilt(['inspect', '--json', '--user', 'u2'], dir)).summary.byNamespace[0].expiredPendingSweep === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect((await runBuilt(['sweep'], dir)).summary).toEqual({ ok: true, command: 'sweep', deleted: 1 });
    expect((await runBuilt(['sweep'], dir)).summary.deleted).toBe(0);

    const retier = await runBuilt(['retier', '--user', 'u1'], dir);
    expect(retier.summary).toMatchObject({ ok: true, command: 'retier', namespace: { userId: 'u1' }, scanned: 2 });

    const plan = await runBuilt(['consolidate', '--dry-run'], dir);
    expect(plan.summary).toMatchObject({ ok: true, dryRun: true, namespaces: 3, groups: 1, merged: 1 });
    expect(plan.summary.planned[0].namespace).toEqual({ userId: 'u1' });
    expect((await runBuilt(['inspect', '--json'], dir)).summary.records).toBe(4);
    const merged = await runBuilt(['consolidate'], dir);
    expect(merged.summary).toMatchObject({ ok: true, dryRun: false, groups: 1, merged: 1 });
    expect(merged.stderr).toMatch(/^consolidate \[.*\] 100% \| 3\/3 records/m);
    expect((await runBuilt(['inspect', '--json'], dir)).summary.records).toBe(3);
    expect((await runBuilt(['consolidate'], dir)).summary.merged).toBe(0);

    const bad = await runBuilt(['consolidate', '--threshold', '2'], dir);
    expect([bad.code, bad.summary.error.code]).toEqual([2, 'INVALID_INPUT']);
    expect((await runBuilt(['retier', '--agent', 'x'], dir)).code).toBe(2);
  });
});

describe('zeromem reindex', () => {
  it('embeds every memory with the bundled model, with progress; a rerun has nothing left; --detach runs it in the background', { timeout: 180_000 }, async () => {
    const lines = Array.from({ length: 300 }, (_, i) => ({ namespace: { userId: `u${i % 2}` }, content: `The customer ordered ${i} boxes of green tea in spring` }));
    const dir = await storeWith(lines);
    const run = await runBuilt(['reindex', '--embedder', 'bundled'], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.summary).toMatchObject({
      ok: true,
      command: 'reindex',
      model: expect.stringMatching(/^route:han=transformers\.js:bge-small-zh-v1\.5;.*\|other=transformers\.js:zeromem-static-en$/),
      embedded: 300,
      pending: 0,
      interrupted: false,
    });
    expect(run.stderr).toMatch(/^reindex \[.*\] 100% \| 300\/300 records \| bundled/m);
    expect((await runBuilt(['reindex', '--embedder', 'bundled'], dir)).summary).toMatchObject({ ok: true, embedded: 0 });

    // New records, embedded by a detached job that logs to <dir>/jobs/reindex-zeromem.log.
    const more = join(dir, 'more.jsonl');
    writeFileSync(more, lines.map((l, i) => JSON.stringify({ ...l, content: `${l.content}, delivery ${i}` })).join('\n'));
    await runBuilt(['import', more], dir);
    const detached = await runBuilt(['reindex', '--embedder', 'bundled', '--detach'], dir);
    expect(detached.summary).toMatchObject({ ok: true, detached: true, log: join(dir, 'jobs', 'reindex-zeromem.log') });
    let log = '';
    for (let i = 0; i < 1200 && !log.includes('"command":"reindex"'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      log = readFileSync(detached.summary.log, 'utf8');
    }
    expect(JSON.parse(log.trimEnd().split('\n').pop()!)).toMatchObject({ ok: true, embedded: 300, pending: 0 });

    const none = await runBuilt(['reindex', '--embedder', 'none'], dir);
    expect([none.code, none.summary.error.code]).toEqual([2, 'INVALID_INPUT']);
    const missing = await runBuilt(['reindex', '--embedder', './no-such-model'], dir);
    expect([missing.code, missing.summary.error.code]).toEqual([1, 'EMBEDDER_UNAVAILABLE']);
  });

  it('with a model whose calls take a while (--embedder minilm) the bar ends at 100% of what was embedded', { timeout: 180_000 }, async () => {
    // The embed queue stores the vectors of the calls it made within 250 ms together: a poll
    // between a call and that write counted its texts twice (the bar ended at 300/364).
    const lines = Array.from({ length: 300 }, (_, i) => ({ namespace: { userId: 'u1' }, content: `The customer asked about order ${i} and the green tea` }));
    const dir = await storeWith(lines);
    const run = await runBuilt(['reindex', '--embedder', 'minilm'], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.summary).toMatchObject({ ok: true, embedded: 300, pending: 0 });
    expect(run.stderr).toMatch(/^reindex \[.*\] 100% \| 300\/300 records \| minilm/m);
  });

  it('Ctrl-C stops it cleanly; a rerun embeds the rest', { timeout: 180_000 }, async () => {
    const lines = Array.from({ length: 4000 }, (_, i) => ({ namespace: { userId: 'u1' }, content: `Order ${i}: the customer asked about the charging port and battery ${i * 3}` }));
    const dir = await storeWith(lines);
    const first = startBuilt(['reindex', '--embedder', 'bundled'], dir);
    let stderr = '';
    first.child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    for (let i = 0; i < 3000 && !/\| [1-9]\d*\/\d+ records/.test(stderr); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    first.child.kill('SIGINT');
    const stopped = await first.done;
    const rerun = await runBuilt(['reindex', '--embedder', 'bundled'], dir);
    expect(rerun.summary).toMatchObject({ ok: true, pending: 0 });
    if (stopped.code === 130) {
      expect(stopped.summary).toMatchObject({ ok: false, interrupted: true });
      expect(stopped.summary.embedded).toBeLessThan(4000);
      expect(rerun.summary.embedded).toBeGreaterThan(0);
      expect(stopped.summary.embedded + rerun.summary.embedded).toBeGreaterThanOrEqual(4000);
    } else {
      // It finished before the signal arrived (a fast machine): nothing is left for the rerun.
      expect(stopped.summary).toMatchObject({ ok: true, embedded: 4000 });
      expect(rerun.summary.embedded).toBe(0);
    }
    expect((await runBuilt(['reindex', '--embedder', 'bundled'], dir)).summary.embedded).toBe(0);
  });
});
