import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN, startServiceProcess, type ServiceProcess } from '../../packages/server/test/service-process.ts';
import { matchesPrinted } from './printed.ts';

// The README's memory-service walkthroughs (the curl session and the Python client, and the
// curl session of "Facts that change") run against a started service, as a reader would run them.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
/** The README's text from one heading to the next one of its level. */
const sectionOf = (heading: string) => {
  const start = readme.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`README.md has no "${heading}"`);
  const next = readme.indexOf('\n## ', start + heading.length + 2);
  return readme.slice(start, next === -1 ? undefined : next);
};
const blocksOf = (text: string, info: string) => [...text.matchAll(new RegExp('^```' + info + '\\n([\\s\\S]*?)^```$', 'gm'))].map((m) => m[1]!);
const block = (lang: string) => blocksOf(sectionOf('## Memory service: HTTP for agents in any language'), lang);
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

describe('README: facts that change, over HTTP', () => {
  it('the curl session prints what the README shows, line by line', async () => {
    const facts = sectionOf('## Facts that change');
    const [session] = blocksOf(facts, 'sh facts-service');
    const [shown] = blocksOf(facts, 'text facts-service');
    expect(session, 'a ```sh facts-service block').toBeDefined();
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', session!], { env: { ...process.env, ZEROMEM_URL: service.url, ZEROMEM_SERVE_TOKEN: TOKEN } });
    const printed = stdout.trimEnd().split('\n');
    const expected = shown!.trimEnd().split('\n');
    expect(printed).toHaveLength(expected.length);
    printed.forEach((line, i) => expect(matchesPrinted(line, expected[i]!), `line ${i + 1}:\n${line}\nshown:\n${expected[i]}`).toBe(true));
  });
});
