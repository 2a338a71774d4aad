import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN, startServiceProcess, type ServiceProcess } from './service-process.ts';

const SCRIPT = fileURLToPath(new URL('./python/after_sales.py', import.meta.url));
let service: ServiceProcess;

beforeAll(async () => {
  service = await startServiceProcess();
});
afterAll(async () => {
  await service?.stop();
});

describe('a Python client (standard library urllib only)', () => {
  it('writes, recalls and forgets the after-sales ticket', async () => {
    const { stdout } = await promisify(execFile)('python3', [SCRIPT], { env: { ...process.env, ZEROMEM_URL: service.url, ZEROMEM_SERVE_TOKEN: TOKEN } });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe('remember 201 TS20240315');
    expect(lines[1]).toMatch(/^recall 200 TS20240315 [\d.]+ 用户王先生反馈充电口接触不良，已生成工单 TS20240315，约定周三回访$/);
    expect(lines[2]).toMatch(/^context 200 \d+ tokens$/);
    expect(lines[3]).toBe("forget 200 {'forgotten': True}");
    expect(lines[4]).toBe('recall after forget 200 0 hits');
    expect(lines[5]).toBe('get after forget 404 NOT_FOUND');
  });
});

describe('zeromem serve (the CLI command)', () => {
  it('starts the same service, prints the generated token, and stops on SIGTERM', async () => {
    const { spawn } = await import('node:child_process');
    const bin = fileURLToPath(new URL('../../cli/bin/zeromem.js', import.meta.url));
    const env = { ...process.env };
    delete env.ZEROMEM_SERVE_TOKEN;
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
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
  });
});
