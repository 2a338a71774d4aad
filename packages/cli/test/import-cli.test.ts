import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { openMemory } from '@zeromem/core';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/main.ts';
import { runCli } from './run-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'zeromem-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let lines: string[] = [];
beforeAll(async () => {
  const memory = await openMemory({ name: 'source', indexedDB: new IDBFactory(), IDBKeyRange });
  const user = { userId: 'u1' };
  await memory.rememberMany([
    { namespace: user, id: 'a', content: 'Prefers phone calls' },
    { namespace: user, id: 'b', content: 'Lives in Lyon', tags: ['profile'] },
    { namespace: { userId: 'u1', agentId: 'sales' }, id: 'c', content: 'Asked for the spring catalogue' },
  ]);
  lines = (await memory.exportJsonl({ userId: 'u1' })).trimEnd().split('\n');
  await memory.close();
});

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) } });
  return { code, stdout, stderr };
}

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('zeromem check-import (checks an export in-process)', () => {
  it('a good export (plain or gzipped): exit 0 and what it stored', async () => {
    for (const path of [file('good.jsonl', `${lines.join('\n')}\n`), file('good.jsonl.gz', gzipSync(`${lines.join('\n')}\n`))]) {
      const result = await run(['check-import', path]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('zeromem export version 1, user u1, vectors: none');
      expect(result.stdout).toContain('records: 3 imported, 0 duplicates, 0 expired (skipped), 0 bad lines');
      expect(result.stderr).toBe('');
    }
  });

  it('bad lines: exit 1, each reported by number, and what the good lines store (as zeromem import would)', async () => {
    const broken = [...lines];
    broken[2] = broken[2]!.replace('"importance":0.5', '"importance":5');
    broken[3] = '{"record":';
    const path = file('bad.jsonl', broken.join('\n'));
    const result = await run(['check-import', path]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('records: 1 imported, 0 duplicates, 0 expired (skipped), 2 bad lines');
    expect(result.stderr).toContain('line 3: INVALID_INPUT record.importance: must be a number from 0 to 1, got 5');
    expect(result.stderr).toMatch(/line 4: INVALID_INPUT is not valid JSON/);
  });

  it('a header core cannot read: exit 1 naming line 1; a file of plain memories is checked as zeromem import reads it', async () => {
    const header = await run(['check-import', file('other-version.jsonl', `${lines[0]!.replace('"version":1', '"version":2')}\n${lines.slice(1).join('\n')}`)]);
    expect(header.code).toBe(1);
    expect(header.stderr).toContain('line 1 is not a zeromem export header core can read: version: must be 1');
    const plain = await run(['check-import', file('other.jsonl', '{"ns":"u1","id":"x","text":"hello"}\n')]);
    expect(plain.code).toBe(1);
    expect(plain.stdout).toContain('JSONL, one memory per line');
    expect(plain.stderr).toMatch(/^line 1: NAMESPACE_REQUIRED ns: unknown/m);
  });

  it('runs as a real child process', { timeout: 60_000 }, async () => {
    const result = await runCli(['check-import', file('good-bin.jsonl', lines.join('\n'))]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('records: 3 imported');
    expect((await runCli(['check-import', '--help'])).stdout).toContain('Usage: zeromem check-import <file> [options]');
  });
});
