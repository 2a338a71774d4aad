import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN, startServiceProcess, type ServiceProcess } from '../../packages/server/test/service-process.ts';
import { matchesPrinted } from './printed.ts';

// The README's "Facts that change" over HTTP: its curl session runs against a started
// service, as a reader would run it, and prints what the README shows, line by line.
// (The section's ```ts blocks run in readme.test.ts with every other README example.)
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## Facts that change'));
const block = (info: string) => [...section.matchAll(new RegExp('^```' + info + '\\n([\\s\\S]*?)^```$', 'gm'))].map((m) => m[1]!);
const run = promisify(execFile);
let service: ServiceProcess;

beforeAll(async () => {
  service = await startServiceProcess();
});
afterAll(async () => {
  await service?.stop();
});

describe('README: facts that change, over HTTP', () => {
  it('the curl session prints what the README shows', async () => {
    const [session] = block('sh facts-service');
    const [shown] = block('text facts-service');
    expect(session, 'a ```sh facts-service block').toBeDefined();
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', session!], { env: { ...process.env, ZEROMEM_URL: service.url, ZEROMEM_SERVE_TOKEN: TOKEN } });
    const printed = stdout.trimEnd().split('\n');
    const expected = shown!.trimEnd().split('\n');
    expect(printed).toHaveLength(expected.length);
    printed.forEach((line, i) => expect(matchesPrinted(line, expected[i]!), `line ${i + 1}:\n${line}\nshown:\n${expected[i]}`).toBe(true));
  });
});
