import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN, startServiceProcess, type ServiceProcess } from './service-process.ts';

// /openapi.json as the tools around OpenAPI read it: Redocly's linter (its recommended
// rules), and a client generated from it (openapi-typescript + openapi-fetch) that must
// type-check under strict TypeScript and then work against the running service.
const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const generated = join(dirname(fileURLToPath(import.meta.url)), '.generated', 'openapi-client');
let service: ServiceProcess;
let doc: { paths: Record<string, Record<string, { operationId?: string }>>; servers?: Array<{ url: string }>; info: { license?: unknown } };

beforeAll(async () => {
  service = await startServiceProcess();
  doc = await (await fetch(`${service.url}/openapi.json`)).json();
});
afterAll(async () => {
  rmSync(generated, { recursive: true, force: true });
  expect(await service?.stop()).toBe(0);
});

describe('/openapi.json for OpenAPI tools', () => {
  it('names every operation, the server and the licence', () => {
    const ids = Object.values(doc.paths).flatMap((operations) => Object.values(operations).map((operation) => operation.operationId));
    expect(ids).toHaveLength(18);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.servers).toEqual([{ url: service.url, description: 'This memory service' }]);
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
  });

  it("passes Redocly's recommended rules with no error and no warning", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: `${service.url}/openapi.json`, config });
    expect(problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`)).toEqual([]);
  });

  it('a client generated from it type-checks strictly and calls the service', { timeout: 120_000 }, async () => {
    mkdirSync(generated, { recursive: true });
    writeFileSync(join(generated, 'zeromem-api.ts'), astToString(await openapiTS(doc as never)));
    writeFileSync(
      join(generated, 'client.ts'),
      `import createClient from 'openapi-fetch';
import type { paths } from './zeromem-api.ts';

const api = createClient<paths>({ baseUrl: ${JSON.stringify(service.url)}, headers: { Authorization: 'Bearer ${TOKEN}' } });
const namespace = { userId: 'wang', agentId: 'after-sales' };
const added = await api.POST('/v1/memories', { body: { namespace, content: 'Mr Wang prefers phone calls after six' } });
const id: string | undefined = added.data && 'id' in added.data ? added.data.id : undefined;
const recalled = await api.POST('/v1/recall', { body: { namespace, query: 'phone calls', k: 3 } });
const top: string | undefined = recalled.data?.hits[0]?.record.content;
const listed = await api.GET('/v1/memories', { params: { query: { userId: 'wang', agentId: 'after-sales' } } });
// @ts-expect-error recall needs a namespace: the generated types say so
await api.POST('/v1/recall', { body: { query: 'phone calls' } });
const refused = await api.GET('/v1/memories/{id}', { params: { path: { id: 'no-such-id' }, query: { userId: 'wang' } } });
await api.POST('/v1/memories', { body: { namespace, key: 'contact.channel', content: 'Mr Wang prefers e-mail', validFrom: '2026-03-04' } });
const profile = await api.GET('/v1/profile', { params: { query: { userId: 'wang', agentId: 'after-sales' } } });
const fact: string | undefined = profile.data?.profile[0]?.key;
// A boolean query parameter takes a boolean (openapi-fetch writes it as "true").
const versions = await api.GET('/v1/memories', { params: { query: { userId: 'wang', agentId: 'after-sales', key: 'contact.channel', includeClosed: true } } });
console.log(JSON.stringify({ added: added.response.status, id, top, listed: listed.data?.items.length, refused: refused.error?.error.code, fact, versions: versions.data?.items.length }));
`,
    );
    writeFileSync(
      join(generated, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', allowImportingTsExtensions: true, lib: ['ES2022', 'DOM'], types: [], skipLibCheck: false }, include: ['*.ts'] }),
    );
    writeFileSync(join(generated, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    await run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', generated]).catch((err: { stdout: string }) => {
      throw new Error(`the generated client does not type-check:\n${err.stdout}`);
    });
    const { stdout } = await run(join(root, 'node_modules', '.bin', 'tsx'), [join(generated, 'client.ts')]);
    expect(JSON.parse(stdout)).toEqual({ added: 201, id: expect.any(String), top: 'Mr Wang prefers phone calls after six', listed: 1, refused: 'NOT_FOUND', fact: 'contact.channel', versions: 1 });
  });
});
