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

