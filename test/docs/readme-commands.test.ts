import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';

// The READMEs' `npx -y pnpm@10 exec ...` commands run exactly as written, in a directory of
// the repository (where pnpm finds the workspace's bins), as a reader runs them after
// `pnpm install` and `pnpm build`. They use the fixed ports the READMEs name.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
mkdirSync(join(root, '.tmp'), { recursive: true });
const work = mkdtempSync(join(root, '.tmp', 'readme-commands-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The ```sh blocks of `file` between `from` and the next `## ` heading. */
function shBlocks(file: string, from: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const start = text.indexOf(from);
  const section = text.slice(start, text.indexOf('\n## ', start + from.length));
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

interface Session {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}
const sessions: Session[] = [];
afterEach(async () => {
  for (const session of sessions.splice(0)) {
    try {
      process.kill(-session.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** Runs `code` in bash in its own process group (what it starts in the background is in it too). */
function shell(code: string, cwd: string, env: NodeJS.ProcessEnv = {}): Session {
  // The reader's environment: none of the variables these commands read is set unless given.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('ZEROMEM_')));
  const child = spawn('bash', ['-c', code], { cwd, env: { ...inherited, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const session = { child, stdout: () => stdout, stderr: () => stderr, exited };
  sessions.push(session);
  return session;
}

/** Polls `check`; fails after `timeoutMs`, or at once if the shell ended while it ought to run (`foreground`). */
async function until(check: () => boolean, what: string, session: Session, { timeoutMs = 90_000, foreground = false } = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (foreground && session.child.exitCode !== null) throw new Error(`the commands ended (${session.child.exitCode}) before ${what}: ${session.stdout()}\n${session.stderr()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${session.stdout()}\n${session.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Opens a websocket to the relay with `token` for `room`; resolves true once it is open. */
function opens(room: string, token: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws://127.0.0.1:8787/${encodeURIComponent(room)}?token=${token}`);
    socket.once('open', () => {
      socket.close();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the READMEs\' commands run in the repository as written', { timeout: 180_000 }, () => {
  for (const [file, heading, room] of [
    ['README.md', '## Relay', 'u=alice;s=support'],
    ['apps/desktop/README.md', '## Sync two devices', 'u=user-1042'],
  ] as const) {
    it(`${file} "${heading}": the relay starts on 8787, the token command prints a token it accepts, SIGTERM stops it`, async () => {
      const [block] = shBlocks(file, heading);
      expect(block).toContain('npx -y pnpm@10 exec zeromem-relay --port 8787');
      const dir = mkdtempSync(join(work, 'relay-'));
      const session = shell(block!, dir);
      await until(() => /^ws:\/\/127\.0\.0\.1:8787$/m.test(session.stdout()), 'the relay to print its URL', session);
      await until(() => /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/m.test(session.stdout()), 'the token', session);
      const token = /^(eyJ[\w-]+\.[\w-]+\.[\w-]+)$/m.exec(session.stdout())![1]!;
      expect(await opens(room, token)).toBe(true);
      const health = (await (await fetch('http://127.0.0.1:8787/healthz')).json()) as { status: string };
      expect(health.status).toBe('ok');
      process.kill(-session.child.pid!, 'SIGTERM');
      await until(() => session.stderr().includes('"msg":"stopped"'), 'the relay to stop cleanly', session, { timeoutMs: 30_000 });
    });
  }

  it('README.md "## Memory service": zeromem serve listens on 8788 and prints its token', async () => {
    const [block] = shBlocks('README.md', '## Memory service');
    expect(block).toContain('npx -y pnpm@10 exec zeromem serve');
    const dir = mkdtempSync(join(work, 'serve-'));
    const session = shell(block!, dir, { HOME: dir });
    await until(() => /^token: \S+$/m.test(session.stdout()), 'the service to print its token', session, { foreground: true });
    expect(session.stdout()).toContain('listening on http://127.0.0.1:8788');
    const token = /^token: (\S+)$/m.exec(session.stdout())![1]!;
    const stats = await fetch('http://127.0.0.1:8788/v1/stats?userId=alice', { headers: { authorization: `Bearer ${token}` } });
    expect(stats.status).toBe(200);
    process.kill(-session.child.pid!, 'SIGTERM');
    await until(() => session.stdout().includes('SIGTERM, stopping'), 'the service to stop', session, { timeoutMs: 30_000 });
  });
});
