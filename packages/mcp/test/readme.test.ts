import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { call, stdioClient, tempHome } from './bin-client.ts';

const here = dirname(fileURLToPath(import.meta.url));
const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');

it('the Claude Desktop / Cursor config of the README starts a working server', async () => {
  const [json] = [...readme.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  const server = (JSON.parse(json!) as { mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }> }).mcpServers.zeromem!;
  // `npx -y @zeromem/mcp` runs the package's bin: here, this package's.
  expect(server.command).toBe('npx');
  expect(server.args.slice(0, 2)).toEqual(['-y', '@zeromem/mcp']);
  const home = tempHome();
  const { client, close } = await stdioClient(server.args.slice(2), { ...server.env, ZEROMEM_HOME: home.ZEROMEM_HOME });
  try {
    await call(client, 'add_memory', { content: 'Alice prefers tea to coffee' });
    const found = await call<{ results: Array<{ content: string }> }>(client, 'search_memories', { query: 'tea' });
    expect(found.results.map((r) => r.content)).toEqual(['Alice prefers tea to coffee']);
  } finally {
    await close();
    home.remove();
  }
}, 60_000);
