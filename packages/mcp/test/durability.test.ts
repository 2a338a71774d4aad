import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, call, httpServer, stdioClient, tempHome } from './bin-client.ts';

// The server keeps its memories on disk: what it acknowledged survives a SIGKILL, and a
// second server on the same store shares the file with the first.
const TOKEN = 'test-token-0123456789abcdef';
const home = tempHome();
afterAll(() => home.remove());

type Listed = { memories: Array<{ id: string; content: string }>; nextCursor: string | null };

/** Every memory of the namespace, through list_memories. */
async function everything(client: Client): Promise<Map<string, string>> {
  const all = new Map<string, string>();
  let cursor: string | null = null;
  do {
    const page: Listed = await call(client, 'list_memories', { limit: 100, ...(cursor ? { cursor } : {}) });
    for (const memory of page.memories) all.set(memory.id, memory.content);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

/**
 * Sends `count` add_memory calls at once and SIGKILLs the server as soon as `killAfter` of
 * them are acknowledged, while the rest are in flight; resolves to the acknowledged ones.
 */
async function addThenKill(client: Client, label: string, count: number, killAfter: number, kill: () => void): Promise<Map<string, string>> {
  const acknowledged = new Map<string, string>();
  let killed = false;
  const calls = Array.from({ length: count }, async (_, i) => {
    const content = `${label} fact ${i}`;
    try {
      const result = await call<{ id: string }>(client, 'add_memory', { content });
      if (killed) return; // answered after the kill was sent: not counted, it may or may not be stored
      acknowledged.set(result.id, content);
      if (acknowledged.size === killAfter) {
        killed = true;
        kill();
      }
    } catch {
      // cut off by the kill
    }
  });
  await Promise.race([Promise.all(calls), new Promise((resolve) => setTimeout(resolve, 20_000))]);
  return acknowledged;
}

describe('zeromem-mcp on the durable Node store', () => {
  it('over stdio: a SIGKILLed server loses no acknowledged add_memory; a restarted one has them all', async () => {
    const env = { ZEROMEM_HOME: home.ZEROMEM_HOME };
    const first = await stdioClient(['--user', 'alice', '--db', 'stdio-kill'], env);
    const acknowledged = await addThenKill(first.client, 'stdio', 30, 12, () => first.process().kill('SIGKILL'));
    await first.exited();
    expect(acknowledged.size).toBeGreaterThanOrEqual(12);

    const second = await stdioClient(['--user', 'alice', '--db', 'stdio-kill'], env);
    try {
      const stored = await everything(second.client);
      for (const [id, content] of acknowledged) expect(stored.get(id), `acknowledged ${content}`).toBe(content);
    } finally {
      await second.close();
    }
  }, 90_000);

  it('over HTTP: a SIGKILLed server loses no acknowledged add_memory; a restarted one has them all', async () => {
    const env = { ZEROMEM_HOME: home.ZEROMEM_HOME, ZEROMEM_MCP_TOKEN: TOKEN };
    const connect = async (url: string) => {
      const client = new Client({ name: 'zeromem-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
      return client;
    };
    const first = await httpServer(['--user', 'alice', '--db', 'http-kill'], env);
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    const acknowledged = await addThenKill(await connect(first.url), 'http', 30, 12, () => first.child.kill('SIGKILL'));
    await exited;
    expect(acknowledged.size).toBeGreaterThanOrEqual(12);

    const second = await httpServer(['--user', 'alice', '--db', 'http-kill'], env);
    try {
      const stored = await everything(await connect(second.url));
      for (const [id, content] of acknowledged) expect(stored.get(id), `acknowledged ${content}`).toBe(content);
    } finally {
      await second.stop();
    }
  }, 90_000);

  it('a second server on the same store shares it: each sees what the other acknowledged, at once', async () => {
    const env = { ZEROMEM_HOME: home.ZEROMEM_HOME };
    const first = await stdioClient(['--user', 'alice', '--db', 'shared-store'], env);
    const second = await stdioClient(['--user', 'alice', '--db', 'shared-store'], env);
    try {
      const { id: fromFirst } = await call<{ id: string }>(first.client, 'add_memory', { content: 'Alice keeps one store' });
      const { id: fromSecond } = await call<{ id: string }>(second.client, 'add_memory', { content: 'Alice uses two MCP clients' });
      for (const client of [first.client, second.client]) {
        expect(await everything(client)).toEqual(new Map([[fromFirst, 'Alice keeps one store'], [fromSecond, 'Alice uses two MCP clients']]));
      }
      const found = await call<{ results: Array<{ id: string }> }>(first.client, 'search_memories', { query: 'two MCP clients' });
      expect(found.results[0]?.id).toBe(fromSecond);
    } finally {
      await first.close();
      await second.close();
    }
  }, 60_000);

  it('--dir puts the store in that directory', async () => {
    const dir = join(home.ZEROMEM_HOME, 'elsewhere');
    const first = await stdioClient(['--user', 'alice', '--dir', dir], { ZEROMEM_HOME: join(home.ZEROMEM_HOME, 'unused') });
    await call(first.client, 'add_memory', { content: 'Alice stores elsewhere' });
    await first.close();
    await first.exited();
    expect(existsSync(join(dir, 'zeromem.sqlite'))).toBe(true);
    expect(existsSync(join(home.ZEROMEM_HOME, 'unused', 'zeromem.sqlite'))).toBe(false);
  }, 60_000);
});
