import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startServingProcess } from '../../packages/core/test/store/sqlite/run-store-process.ts';
import { call, stdioClient } from '../../packages/mcp/test/bin-client.ts';

// One memory per device: two `zeromem-mcp` (Claude Desktop's and Cursor's), one
// `zeromem serve` (a Python agent's) and one script using `openMemory`, all on the same
// store in ZEROMEM_HOME, each a process of its own. What any of them acknowledged, the
// others read at once and recall finds.

const CLI = fileURLToPath(new URL('../../packages/cli/src/bin.ts', import.meta.url));
const TOKEN = 'device-store-token-0123456789';
const home = mkdtempSync(join(tmpdir(), 'zeromem-device-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const NS = { userId: 'u1' }; // store-process.ts's namespace; the MCP servers run with --user u1

/** `zeromem serve` on a free port, resolved with its URL once it listens. */
async function startServe(): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve', '--port', '0', '--name', 'device', '--embedder', 'none'], {
    env: { ...process.env, ZEROMEM_HOME: home, ZEROMEM_SERVE_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`zeromem serve exited with ${code}: ${output}`)));
  });
  return { url, stop: () => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM'))) };
}

describe('one store on a device, four processes', () => {
  it('two zeromem-mcp, zeromem serve and an openMemory script each read what the others acknowledged, at once, in get, list and recall', async () => {
    const env = { ZEROMEM_HOME: home };
    const [claude, cursor, serve, script] = await Promise.all([
      stdioClient(['--user', 'u1', '--db', 'device'], env),
      stdioClient(['--user', 'u1', '--db', 'device'], env),
      startServe(),
      startServingProcess(home, 'device'),
    ]);
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const http = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${serve.url}${path}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    try {
      const contents = ['Claude Desktop heard: prefers green tea', 'Cursor heard: uses vim key bindings', 'The Python agent heard: invoices go out on Fridays', 'The nightly script heard: the piano lesson moved to Tuesday'];
      // All four write at the same time.
      const ids = await Promise.all([
        call<{ id: string }>(claude.client, 'add_memory', { content: contents[0] }).then((answer) => answer.id),
        call<{ id: string }>(cursor.client, 'add_memory', { content: contents[1] }).then((answer) => answer.id),
        http('POST', '/v1/memories', { namespace: NS, content: contents[2] }).then((answer) => answer.body.id as string),
        script.send({ op: 'remember', content: contents[3] }).then((answer) => answer.ok as string),
      ]);
      const expected = new Map(ids.map((id, i) => [id, contents[i]!]));
      for (const mcp of [claude, cursor]) {
        const listed = await call<{ memories: Array<{ id: string; content: string }> }>(mcp.client, 'list_memories', { limit: 10 });
        expect(new Map(listed.memories.map((memory) => [memory.id, memory.content]))).toEqual(expected);
        for (const [id, content] of expected) expect((await call<{ memory: { content: string } }>(mcp.client, 'get_memory', { id })).memory.content).toBe(content);
      }
      for (const [id, content] of expected) {
        const got = await http('GET', `/v1/memories/${id}?userId=u1`);
        expect(got.status).toBe(200);
        expect(got.body.content).toBe(content);
      }
      expect(new Map((await script.send({ op: 'all' })).ok as Array<[string, string]>)).toEqual(expected);
      // Recall in each process finds what another one wrote.
      expect((await call<{ results: Array<{ id: string }> }>(claude.client, 'search_memories', { query: 'piano lesson' })).results[0]?.id).toBe(ids[3]);
      expect((await call<{ results: Array<{ id: string }> }>(cursor.client, 'search_memories', { query: 'invoices Fridays' })).results[0]?.id).toBe(ids[2]);
      const recalled = await http('POST', '/v1/recall', { namespace: NS, query: 'vim key bindings', k: 1 });
      expect((recalled.body.hits as Array<{ id: string }>)[0]?.id).toBe(ids[1]);
      expect(((await script.send({ op: 'recall', query: 'green tea' })).ok as string[])[0]).toBe(ids[0]);
      // A forget in one is gone for all.
      await call(cursor.client, 'delete_memory', { id: ids[0] });
      expect((await http('GET', `/v1/memories/${ids[0]}?userId=u1`)).status).toBe(404);
      expect((await script.send({ op: 'get', id: ids[0] })).ok).toBeNull();
      expect((await call<{ results: Array<{ id: string }> }>(claude.client, 'search_memories', { query: 'green tea' })).results.map((hit) => hit.id)).not.toContain(ids[0]);
    } finally {
      await Promise.all([claude.close(), cursor.close(), serve.stop()]);
      script.child.stdin!.end();
      await script.exited;
    }
  }, 120_000);
});
