import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { issueToken } from '@zeromem/protocol/token';
import { afterAll, describe, expect, it } from 'vitest';
import { SECRET, startServiceProcess } from './service-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'zeromem-module-graph-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A preload (NODE_OPTIONS --import) that registers a module resolve hook writing every URL
 * the process resolves to `log`: the service's whole module graph, static and dynamic
 * imports alike, as the process really loads it.
 */
function moduleRecorder(log: string): string {
  const hooks = join(dir, 'record-hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, resolved.url + '\\n');
  return resolved;
}
`,
  );
  const preload = join(dir, 'record.mjs');
  writeFileSync(preload, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)}, { data: { log: ${JSON.stringify(log)} } });\n`);
  return preload;
}

describe('the memory service process', () => {
  it('checks a namespace-limited token without loading the relay, PostgreSQL or Redis clients', { timeout: 90_000 }, async () => {
    const log = join(dir, 'modules.log');
    writeFileSync(log, '');
    const service = await startServiceProcess(['--token-secret', SECRET, '--embedder', 'none'], { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${pathToFileURL(moduleRecorder(log)).href}`.trim() });
    try {
      // A verified limited token: the token check has run, whatever it loads lazily is loaded.
      const token = await issueToken({ secret: SECRET, subject: 'graph', rooms: ['u=wang'], access: 'read', ttlSeconds: 60 });
      const answer = await fetch(`${service.url}/v1/memories?userId=wang`, { headers: { authorization: `Bearer ${token}` } });
      expect(answer.status).toBe(200);
    } finally {
      expect(await service.stop()).toBe(0);
    }
    const loaded = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    const heavy = loaded.filter((url) => /\/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?(?:pg|pg-pool|ioredis)\/|\/packages\/relay\/|@zeromem\/relay/.test(url));
    expect(heavy).toEqual([]);
    expect(loaded.some((url) => url.includes('/protocol/'))).toBe(true); // and the recorder saw the token check's modules
  });
});
