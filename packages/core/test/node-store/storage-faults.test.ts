/**
 * Storage faults a process meets while it runs (issue 29): a full disk, damaged pages,
 * companion files removed. Each fault hits a real process on a real file; a full disk is
 * a small tmpfs the process mounts in a namespace of its own (run-store-process.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { canMountTmpfs, startStoreProcess } from './run-store-process.ts';

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
});
