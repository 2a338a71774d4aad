import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, httpServer, tempHome } from './bin-client.ts';

const TOKEN = 'test-token-0123456789abcdef';
let server: Awaited<ReturnType<typeof httpServer>>;
const home = tempHome();

beforeAll(async () => {
  server = await httpServer(['--user', 'alice', '--allowed-origin', 'http://localhost:5173'], { ZEROMEM_MCP_TOKEN: TOKEN, ZEROMEM_HOME: home.ZEROMEM_HOME });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  home.remove();
});

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const post = (headers: Record<string, string>, body: unknown = initialize) =>
  fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });

/** A POST with a Host header of our choosing (fetch never sends one it did not derive from the URL). */
const postWithHost = (host: string) =>
  new Promise<number>((resolve, reject) => {
    const url = new URL(server.url);
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { host, authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.once('error', reject);
    req.end(JSON.stringify(initialize));
  });

describe('zeromem-mcp over Streamable HTTP', () => {
  it('listens on loopback', () => {
    expect(new URL(server.url).hostname).toBe('127.0.0.1');
  });

  it('serves the SDK client that sends the bearer token', async () => {
    const client = new Client({ name: 'zeromem-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
    const added = await call<{ id: string }>(client, 'add_memory', { content: 'Alice takes the 8:15 train' });
    const found = await call<{ results: Array<{ id: string }> }>(client, 'search_memories', { query: 'train' });
    expect(found.results.map((r) => r.id)).toEqual([added.id]);
    await client.close();
  });

  it('refuses requests without the token, with a wrong one, from a foreign Host or Origin', async () => {
    expect((await post({})).status).toBe(401);
    const wrong = await post({ authorization: 'Bearer wrong-token-0123456789' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/Bearer/);
    expect(await postWithHost('evil.example')).toBe(403); // a DNS-rebinding page's request
    expect(await postWithHost(new URL(server.url).host)).toBe(200);
    const origin = await post({ authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' });
    expect(origin.status).toBe(403);
    expect(await origin.text()).toContain('--allowed-origin');
    expect((await post({ authorization: `Bearer ${TOKEN}`, origin: 'http://localhost:5173' })).status).toBe(200);
  });

  it('checks the token before it reads the body, and answers every error as JSON without internals', async () => {
    const raw = (headers: Record<string, string>, body: string, method = 'POST', path = '') =>
      fetch(server.url + path, { method, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, ...(method === 'POST' ? { body } : {}) });
    const expectJsonError = async (response: Response, status: number) => {
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const text = await response.text();
      expect(text).not.toMatch(/node_modules|SyntaxError|PayloadTooLarge|\bat \S+ \(|<html|<pre/i);
      return JSON.parse(text) as { jsonrpc: string; error: { code: number; message: string }; id: null };
    };
    const truncated = '{"jsonrpc":';
    const large = JSON.stringify({ ...initialize, padding: 'x'.repeat(200 * 1024) });
    // Without the token: 401 whatever the body, which is never parsed.
    await expectJsonError(await raw({}, truncated), 401);
    await expectJsonError(await raw({}, large), 401);
    await expectJsonError(await raw({ authorization: 'Bearer wrong-token-0123456789' }, truncated), 401);
    // With it: the body's problems, as JSON-RPC errors.
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await expectJsonError(await raw(auth, truncated), 400)).error.code).toBe(-32700);
    expect((await expectJsonError(await raw(auth, large), 413)).error.message).toMatch(/too large/);
    await expectJsonError(await raw(auth, '', 'GET', '/../nowhere'), 404);
  });

  it('refuses to start over HTTP without a token, or on a non-loopback host without --allowed-host', async () => {
    await expect(httpServer(['--user', 'alice'], { ZEROMEM_MCP_TOKEN: '', ZEROMEM_HOME: home.ZEROMEM_HOME })).rejects.toThrow(/ZEROMEM_MCP_TOKEN/);
    await expect(httpServer(['--user', 'alice', '--host', '0.0.0.0'], { ZEROMEM_MCP_TOKEN: TOKEN, ZEROMEM_HOME: home.ZEROMEM_HOME })).rejects.toThrow(/--allowed-host/);
  }, 60_000);
});
