// The MCP SDK's client on the installed zeromem-mcp: over stdio, started as a Claude
// Desktop / Cursor config says (argv[2]: that config's JSON), and over Streamable HTTP.
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const server = JSON.parse(process.argv[2]).mcpServers.zeromem;
const result = {};

async function exercise(client, label) {
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  const added = await client.callTool({ name: 'add_memory', arguments: { content: `Alice takes the train (${label})` } });
  const found = await client.callTool({ name: 'search_memories', arguments: { query: 'train' } });
  const bad = await client.callTool({ name: 'add_memory', arguments: { content: 'x', namespace: { userId: 'bob' } } });
  result[label] = { tools, added: added.structuredContent.memory.content, found: found.structuredContent.results.map((r) => r.content), badIsError: bad.isError === true, badSays: bad.content[0].text };
}

const stdio = new Client({ name: 'package-test', version: '1.0.0' });
await stdio.connect(new StdioClientTransport({ command: server.command, args: server.args, env: { ...process.env, ...server.env }, stderr: 'ignore' }));
await exercise(stdio, 'stdio');
await stdio.close();

const token = 'package-test-token-0123456789';
const child = spawn(process.execPath, ['node_modules/@zeromem/mcp/dist/bin.js', '--http', '--port', '0', '--user', 'alice'], { env: { ...process.env, ZEROMEM_MCP_TOKEN: token }, stdio: ['ignore', 'ignore', 'pipe'] });
const url = await new Promise((resolve, reject) => {
  let err = '';
  child.stderr.on('data', (chunk) => {
    err += chunk;
    const match = /serving (http:\/\/\S+)/.exec(err);
    if (match) resolve(match[1]);
  });
  child.once('exit', (code) => reject(new Error(`zeromem-mcp exited ${code}: ${err}`)));
});
result.unauthorized = (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status;
const http = new Client({ name: 'package-test', version: '1.0.0' });
await http.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
await exercise(http, 'http');
await http.close();
// Stopped and gone before the next program opens the same store (one process at a time).
const exited = new Promise((resolve) => child.once('exit', resolve));
child.kill('SIGTERM');
await exited;
console.log(JSON.stringify(result));
