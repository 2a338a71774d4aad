import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILT_BIN } from '../../packages/cli/test/built-cli.ts';
import { matchesPrinted } from './printed.ts';

// packages/cli/README.md's session runs as a reader would run it (the built `zeromem` under
// plain node, in an empty directory with its own ZEROMEM_HOME), and prints what it shows.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const readme = readFileSync(join(root, 'packages', 'cli', 'README.md'), 'utf8');
const block = (info: string) => [...readme.matchAll(new RegExp('^```' + info + '\\n([\\s\\S]*?)^```$', 'gm'))].map((m) => m[1]!);
const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'zeromem-readme-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs shell code with `zeromem` being the built bin. */
function shell(code: string, cwd: string, env: NodeJS.ProcessEnv) {
  const prelude = `zeromem() { "${process.execPath}" "${BUILT_BIN}" "$@"; }\n`;
  return run('bash', ['-uo', 'pipefail', '-c', prelude + code], { cwd, env: { ...process.env, ...env }, maxBuffer: 1 << 24 });
}

describe('packages/cli/README.md', () => {
  it('the session prints what the README shows, line by line', { timeout: 120_000 }, async () => {
    const [session] = block('sh cli-session');
    const [shown] = block('text cli-session');
    const dir = join(work, 'session');
    mkdirSync(dir);
    const { stdout, stderr } = await shell(session!, dir, { ZEROMEM_HOME: join(dir, 'home') });
    const printed = stdout.trimEnd().split('\n');
    const expected = shown!.trimEnd().split('\n');
    expect(printed).toHaveLength(expected.length);
    printed.forEach((line, i) => expect(matchesPrinted(line, expected[i]!), `line ${i + 1}:\n${line}\nshown:\n${expected[i]}`).toBe(true));
    expect(stderr).toMatch(/^import \[.*\] 100% \| .* \| 3 items, 1 failed \| ETA/m);
  });

  it('the crontab lines run as they are written', { timeout: 120_000 }, async () => {
    const crontab = block('text').find((code) => code.includes('zeromem sweep'))!;
    const home = join(work, 'cron-home');
    mkdirSync(join(home, '.zeromem'), { recursive: true });
    const commands = crontab.split('\n').filter((line) => line.trim() && !line.startsWith('#')).map((line) => line.trim().split(/\s+/).slice(5).join(' '));
    expect(commands.length).toBe(2);
    for (const command of commands) await shell(`set -e; ${command}`, home, { HOME: home, ZEROMEM_HOME: '' });
    expect(existsSync(join(home, '.zeromem', 'zeromem.sqlite'))).toBe(true); // ~/.zeromem without ZEROMEM_HOME
    const log = readFileSync(join(home, '.zeromem', 'jobs.log'), 'utf8');
    const summaries = log.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
    expect(summaries.map((s) => [s.command, s.ok])).toEqual([
      ['sweep', true],
      ['retier', true],
      ['consolidate', true],
    ]);
  });
});
