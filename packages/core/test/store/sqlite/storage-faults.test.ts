/**
 * Storage faults a process meets while it runs (issue 29): a full disk, damaged pages,
 * companion files removed. Each fault hits a real process on a real file; a full disk is
 * a small tmpfs the process mounts in a namespace of its own (run-store-process.ts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemory } from '../../../src/index.node.ts';
import { NS, canMountTmpfs, runStoreProcess, startServingProcess, startStoreProcess, type ServingProcess } from './run-store-process.ts';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-faults-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const tmpfs = canMountTmpfs();

/** Runs fault-process.ts `command` on a 4 MB tmpfs to its end. */
async function onFullDisk(command: string): Promise<{ code: number | null; lines: string[]; stderr: string }> {
  const dir = tempDir();
  const child = startStoreProcess([command, dir, 'agent'], { script: './fault-process.ts', tmpfs: { dir, size: '4m' } });
  const { code, stderr } = await child.exited;
  return { code, lines: child.lines, stderr };
}

/** Runs fault-process.ts `command` on the store `agent` in `dir` to its end; its JSON step lines by step. */
async function faultProcess(command: string, dir: string, ...args: string[]) {
  const child = startStoreProcess([command, dir, 'agent', ...args], { script: './fault-process.ts' });
  const { code, stderr } = await child.exited;
  const steps = Object.fromEntries(
    child.lines.filter((line) => line.startsWith('{"step"')).map((line) => [(JSON.parse(line) as { step: string }).step, JSON.parse(line) as Record<string, unknown>]),
  );
  return { code, stderr, lines: child.lines, steps };
}

/** A store `agent` in a new directory with `n` memories, closed (its WAL checkpointed into the file). */
async function storeWith(n: number): Promise<{ dir: string; file: string; ids: string[] }> {
  const dir = tempDir();
  const memory = await openMemory({ name: 'agent', directory: dir });
  const { results } = await memory.rememberMany(Array.from({ length: n }, (_, i) => ({ namespace: NS, content: `Memory number ${i} with some words to fill pages: ${'lorem ipsum '.repeat(8)}` })));
  await memory.close();
  await new Promise((resolve) => setTimeout(resolve, 50)); // the file closes once the connection's work is done
  return { dir, file: join(dir, 'agent.sqlite'), ids: results.map((r) => r.record.id) };
}

/** What a new process finds in the store: its record count, or the error code and reason of its open. */
async function reopen(dir: string): Promise<{ count?: number; code?: string; reason?: string }> {
  const lines = await runStoreProcess(['open', dir, 'agent']);
  const opened = JSON.parse(lines.at(-1)!) as { ok?: true; code?: string; reason?: string };
  if (!opened.ok) return { code: opened.code!, reason: opened.reason! };
  return { count: (JSON.parse((await runStoreProcess(['read', dir, 'agent'])).at(-1)!) as { count: number }).count };
}

/** `n` remembers through a serving process; every one must be acknowledged. */
async function rememberThrough(process: ServingProcess, n: number, label: string): Promise<void> {
  for (let i = 0; i < n; i++) expect(await process.send({ op: 'remember', content: `${label} ${i}` })).toHaveProperty('ok');
}

describe('storage faults', { timeout: 120_000 }, () => {
  it.skipIf(!tmpfs)('a background write that fails on a full disk is reported once as a warning and the process goes on (no onBackgroundError)', async () => {
    const { code, lines, stderr } = await onFullDisk('full-recall');
    expect(lines, stderr).toContain('alive');
    expect(lines).toContain('closed');
    expect(code, stderr).toBe(0);
    expect(lines.find((line) => line.startsWith('recalled '))).not.toBe('recalled 0');
    const warnings = stderr.split('\n').filter((line) => line.includes('QUOTA_EXCEEDED'));
    expect(warnings, stderr).toHaveLength(1);
    expect(warnings[0]).toContain('onBackgroundError');
  });

  it.skipIf(!tmpfs)('forget and forgetWhere succeed on a full disk, and a refused write does not advise what fails too', async () => {
    const { code, lines, stderr } = await onFullDisk('full-forget');
    expect(code, stderr).toBe(0);
    const steps = Object.fromEntries(
      lines.filter((line) => line.startsWith('{"step"')).map((line) => [(JSON.parse(line) as { step: string }).step, JSON.parse(line) as Record<string, unknown>]),
    );
    expect(steps.remember).toMatchObject({ code: 'QUOTA_EXCEEDED', reason: 'full' });
    expect(String(steps.remember!.message)).not.toMatch(/export/i);
    expect(steps.forget, stderr).toMatchObject({ ok: true });
    expect((steps.forgetWhere as { ok: string[] }).ok, stderr).toHaveLength(20);
    expect(steps['forget again']).toMatchObject({ ok: true });
    expect(lines).toContain(JSON.stringify({ found: 40 - 1 - 20 - 1 }));
  });

  it('a damaged page mid-file: reads are STORAGE_FAILED (corrupt), writes are refused after it, background writes do not crash, close() closes every file', async () => {
    const { dir, file } = await storeWith(3000);
    const bytes = readFileSync(file);
    // A page of records in the middle (the file's middle byte falls on whichever table the layout puts there: an index page left exportJsonl whole).
    const middle = bytes.indexOf('Memory number 1500 with');
    expect(middle).toBeGreaterThan(0);
    bytes.fill(0xa5, middle, middle + 2000);
    writeFileSync(file, bytes);
    const { code, stderr, lines, steps } = await faultProcess('damaged', dir);
    expect(code, stderr).toBe(0);
    for (const verb of ['list', 'exportJsonl', 'stats']) expect(steps[verb], verb).toMatchObject({ code: 'STORAGE_FAILED', reason: 'corrupt' });
    expect(steps.remember).toMatchObject({ code: 'STORAGE_FAILED', reason: 'corrupt' });
    expect(steps.forgetUser).toMatchObject({ code: 'STORAGE_FAILED', reason: 'corrupt' });
    expect(lines).toContain('alive');
    expect(lines).toContain('closed');
    expect(lines).toContain('open files 0');
  });

  it('8 bytes changed inside a record\'s content: get, list and exportJsonl are STORAGE_FAILED (corrupt), never the changed text; the record can be forgotten', async () => {
    const { dir, file, ids } = await storeWith(50);
    const bytes = readFileSync(file);
    const at = bytes.indexOf('Memory number 17 with');
    expect(at).toBeGreaterThan(0);
    bytes.write('XXXXXXXX', at + 'Memory number 17 with'.length + 1, 'latin1');
    writeFileSync(file, bytes);
    const { code, stderr, lines, steps } = await faultProcess('tampered', dir, ids[17]!);
    expect(code, stderr).toBe(0);
    for (const verb of ['get', 'list', 'exportJsonl']) expect(steps[verb], verb).toMatchObject({ code: 'STORAGE_FAILED', reason: 'corrupt' });
    expect(String(steps.get!.message)).toContain(ids[17]!);
    // The file's pages are whole: the damaged record can be forgotten, and the rest reads.
    expect(steps.forget).toMatchObject({ ok: true });
    expect(steps['list after forget']).toMatchObject({ ok: 49 });
    expect(lines).toContain('open files 0');
  });

  it('-wal removed while a process has the store open: its writes are refused (STORAGE_FAILED), and what it acknowledged survives a SIGKILL', async () => {
    const dir = tempDir();
    const a = await startServingProcess(dir, 'agent');
    await rememberThrough(a, 40, 'Acknowledged before the WAL went');
    rmSync(join(dir, 'agent.sqlite-wal'));
    expect(await a.send({ op: 'remember', content: 'Written after the WAL went' })).toMatchObject({ error: 'STORAGE_FAILED' });
    a.child.kill('SIGKILL');
    await a.exited;
    expect(await reopen(dir)).toEqual({ count: 40 });
  });

  it('-wal removed and the process killed before it wrote again: the next open is STORAGE_FAILED (corrupt), never an empty store', async () => {
    const dir = tempDir();
    const a = await startServingProcess(dir, 'agent');
    await rememberThrough(a, 40, 'Acknowledged before the WAL went');
    rmSync(join(dir, 'agent.sqlite-wal'));
    a.child.kill('SIGKILL');
    await a.exited;
    expect(await reopen(dir)).toMatchObject({ code: 'STORAGE_FAILED', reason: 'corrupt' });
  });

  it('-shm removed while a process has the store open: its writes are refused, and another process\'s acknowledged writes survive both closing', async () => {
    const dir = tempDir();
    const a = await startServingProcess(dir, 'agent');
    await rememberThrough(a, 5, 'Written by a');
    rmSync(join(dir, 'agent.sqlite-shm'));
    const b = await startServingProcess(dir, 'agent');
    await rememberThrough(b, 10, 'Written by b');
    expect(await a.send({ op: 'remember', content: 'Written by a after the shm went' })).toMatchObject({ error: 'STORAGE_FAILED' });
    b.child.stdin!.end();
    expect((await b.exited).code).toBe(0);
    a.child.stdin!.end();
    expect((await a.exited).code).toBe(0);
    expect(await reopen(dir)).toEqual({ count: 15 });
  });
});
