import { hostname } from 'node:os';
import { defaultDirectory, diskIndexedDB, openMemory } from '@zeromem/core';
import { shareNamespace, type SharedNamespace } from '@zeromem/sync';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import WebSocket from 'ws';
import { USAGE, UsageError, readConfig, type ServerConfig } from './config.ts';
import { startHttpServer } from './http.ts';
import { createMemoryServer } from './server.ts';

interface Io {
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
}

/**
 * Runs `zeromem-mcp` until stdin closes (stdio) or a SIGINT/SIGTERM arrives; resolves to
 * the exit code. Logs go to stderr: stdout belongs to the MCP protocol.
 */
export async function main(argv: readonly string[], io: Io = { stderr: process.stderr, env: process.env }): Promise<number> {
  let config: ServerConfig | 'help';
  try {
    config = readConfig(argv, io.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`zeromem-mcp: ${err.message}\n\n${USAGE}`);
    return 2;
  }
  if (config === 'help') {
    io.stderr.write(USAGE);
    return 0;
  }
  const log = (line: string) => io.stderr.write(`zeromem-mcp: ${line}\n`);
  // One directory for the memory and the shared copy's document: both on disk.
  const directory = config.directory ?? defaultDirectory();
  const memory = await openMemory({ name: config.db, actor: 'mcp', directory });
  let share: SharedNamespace | undefined;
  if (config.share) {
    share = await shareNamespace(memory, config.namespace, {
      url: config.share.url,
      token: config.share.token,
      WebSocketPolyfill: WebSocket,
      ...diskIndexedDB(directory),
      agentName: 'zeromem-mcp',
      deviceName: hostname(),
      ...(config.share.encryptionKey ? { encryptionKey: config.share.encryptionKey } : {}),
      onError: (err) => log(`share: ${err.code}: ${err.message}`),
    });
    share.synced.then(
      () => log(`shared with ${config.share!.url}`),
      (err: Error) => log(`share: ${err.message}`),
    );
  }
  const serverFor = () => createMemoryServer({ memory, namespace: config.namespace });

  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let closeTransport: () => Promise<void>;
  if (config.transport === 'http') {
    const endpoint = await startHttpServer({ ...config.http!, serverFor });
    log(`serving ${endpoint.url} for namespace ${JSON.stringify(config.namespace)}`);
    closeTransport = endpoint.close;
  } else {
    const server = serverFor();
    const transport = new StdioServerTransport();
    transport.onclose = stop;
    process.stdin.once('end', stop);
    await server.connect(transport);
    log(`ready on stdio for namespace ${JSON.stringify(config.namespace)}`);
    closeTransport = () => server.close();
  }
  await stopped;
  await closeTransport();
  await share?.close();
  await memory.close();
  return 0;
}
