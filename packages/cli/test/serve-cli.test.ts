import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe('zeromem serve (the CLI command)', () => {
  it('starts the same service on the durable store in ZEROMEM_HOME, prints the generated token, and stops on SIGTERM', async () => {
    const { spawn } = await import('node:child_process');
    const bin = fileURLToPath(new URL('../src/bin.ts', import.meta.url));
    const home = mkdtempSync(join(tmpdir(), 'zeromem-serve-cli-'));
    const env: NodeJS.ProcessEnv = { ...process.env, ZEROMEM_HOME: home };
    delete env.ZEROMEM_SERVE_TOKEN;
    const child = spawn(process.execPath, ['--import', 'tsx', bin, 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    for (let i = 0; i < 1200 && !/token: \S+\n/.test(out); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    const url = /listening on (\S+)/.exec(out)![1]!;
    const token = /token: (\S+)\n/.exec(out)![1]!;
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect((await fetch(`${url}/v1/stats?userId=u`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await fetch(`${url}/v1/stats?userId=u`)).status).toBe(401);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(join(home, 'zeromem.sqlite'))).toBe(true);
    rmSync(home, { recursive: true, force: true });
  });
});
