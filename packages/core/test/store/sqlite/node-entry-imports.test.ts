import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * What a Node process loads to open a store on disk and answer a recall: every module URL
 * it resolves, recorded by a resolve hook in a fresh process (this one has loaded
 * everything the other tests needed).
 */
function modulesLoadedBy(script: string, dir: string): string[] {
  const hook = `data:text/javascript,${encodeURIComponent(
    "import { writeSync } from 'node:fs'; export async function resolve(s, c, next) { const r = await next(s, c); writeSync(2, 'LOADED ' + r.url + '\\n'); return r; }",
  )}`;
  const register = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hook)});`)}`;
  const child = spawnSync(process.execPath, ['--conditions=development', '--import', 'tsx', '--import', register, '--input-type=module', '-e', script], {
    cwd: new URL('../..', import.meta.url),
    env: { ...process.env, STORE_DIR: dir },
    encoding: 'utf8',
  });
  expect(child.status, child.stderr).toBe(0);
  expect(child.stdout).toContain('recalled');
  return child.stderr.split('\n').flatMap((line) => (line.startsWith('LOADED ') ? [line.slice(7)] : []));
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("core's Node entry", () => {
  it('opens a store on disk and recalls with a time word without loading Dexie (the IndexedDB engine)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'zeromem-entry-'));
    dirs.push(dir);
    const loaded = modulesLoadedBy(
      `import { openMemory } from '@zeromem/core';
       const memory = await openMemory({ directory: process.env.STORE_DIR });
       await memory.remember({ namespace: { userId: 'u1' }, content: 'Dentist on Tuesday' });
       const { hits } = await memory.recall({ userId: 'u1' }, 'what happened last Tuesday');
       await memory.close();
       console.log('recalled', hits.length);`,
      dir,
    );
    expect(loaded.some((url) => url.includes('/core/src/store/sqlite/sqlite-engine.ts'))).toBe(true); // the hook saw the store open
    expect(loaded.filter((url) => /\/dexie\/|fake-indexeddb/.test(url))).toEqual([]);
  });
});
