import { spawn } from 'node:child_process';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES } from '../src/stdin-messages.ts';
import { BIN, stdioClient, tempHome } from './bin-client.ts';

/**
 * One message over the MCP SDK's stdio read limit (10 MiB) made zeromem-mcp exit 0 without
 * a word (issue 29 item 9): the SDK's transport throws and closes. Now it is answered
 * with a JSON-RPC error, the server keeps serving, and the log says why.
 */
const home = tempHome();
afterAll(() => home.remove());

describe('zeromem-mcp over stdio, given a message over 10 MiB', () => {
  it('answers the SDK client with an error for that request and keeps serving', { timeout: 120_000 }, async () => {
    const { client, stderr, close, exited } = await stdioClient(['--user', 'alice', '--embedder', 'none'], { ZEROMEM_HOME: home.ZEROMEM_HOME });
    try {
      const error = await client.callTool({ name: 'add_memory', arguments: { content: 'x'.repeat(MAX_MESSAGE_BYTES + 1024) } }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32600);
      expect((error as McpError).message).toMatch(/at most 10485760 bytes/);
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(10);
      const added = await client.callTool({ name: 'add_memory', arguments: { content: 'Alice prefers window seats' } });
      expect(added.isError).toBeFalsy();
      expect(stderr()).toMatch(/refused a message of \d+ bytes .* still serving/);
    } finally {
      await close();
      await exited();
    }
  });

  it('a raw client: the error carries the id when it leads the line, none when it cannot be seen, and the process exits 0 when stdin ends', { timeout: 120_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', BIN, '--user', 'alice', '--embedder', 'none'], { env: { ...process.env, ZEROMEM_HOME: home.ZEROMEM_HOME }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
    const answers = async (n: number) => {
      for (let i = 0; i < 1200 && out.split('\n').filter(Boolean).length < n; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      return out.split('\n').filter(Boolean).map((line) => JSON.parse(line));
    };
    const send = (text: string) => new Promise<void>((resolve) => child.stdin.write(`${text}\n`, () => resolve()));
    await send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }));
    await send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    const padding = 'y'.repeat(MAX_MESSAGE_BYTES);
    await send(`{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"name":"add_memory","arguments":{"content":"${padding}"}}}`);
    await send(`{"method":"tools/call","params":{"arguments":{"content":"${padding}","id":7}},"jsonrpc":"2.0"}`);
    await send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    const [init, big, unknown, list] = await answers(4);
    expect(init.id).toBe(1);
    expect(big).toMatchObject({ id: 'big-1', error: { code: -32600 } });
    expect(unknown).toMatchObject({ error: { code: -32600 } });
    expect(unknown.id).toBeUndefined();
    expect(list.id).toBe(2);
    expect(list.result.tools).toHaveLength(10);
    child.stdin.end();
    expect(await exit).toBe(0);
  });
});
