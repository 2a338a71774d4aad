import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN, startServiceProcess, type ServiceProcess } from '../../packages/server/test/service-process.ts';

// The README's memory-service walkthroughs (the curl session and the Python client) run
// against a started service, as a reader would run them.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## Memory service'), readme.indexOf('## Relay'));
const block = (lang: string) => [...section.matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```$', 'gm'))].map((m) => m[1]!);
const run = promisify(execFile);
let service: ServiceProcess;

beforeAll(async () => {
  service = await startServiceProcess();
});
afterAll(async () => {
  await service?.stop();
});

describe('README: memory service walkthroughs', () => {
  const env = () => ({ ...process.env, ZEROMEM_URL: service.url, ZEROMEM_SERVE_TOKEN: TOKEN });

  it('the curl session stores, recalls, updates, shows history and forgets the ticket', async () => {
    const curl = block('sh').find((code) => code.includes('curl'))!;
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', curl], { env: env() });
    const answers = stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(answers[0]).toMatchObject({ id: 'TS20240315', deduplicated: false });
    expect(answers[1].hits[0].record.content).toContain('充电口接触不良');
    expect(answers[2]).toMatchObject({ version: 2, metadata: { status: 'callback-booked' } });
    expect(answers[3].versions).toMatchObject([{ version: 1, metadata: { status: 'open' } }]);
    expect(answers[4]).toEqual({ forgotten: true });
  });

  it('the Python client does the same with urllib', async () => {
    const [python] = block('python');
    const { stdout } = await run('python3', ['-c', python!], { env: env() });
    expect(stdout.trim().split('\n')).toEqual(['用户王先生反馈充电口接触不良，已生成工单 TS20240315，约定周三回访', "{'forgotten': True}", 'NOT_FOUND']);
  });
});
