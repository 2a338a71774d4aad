import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { BoundedMessages, MAX_MESSAGE_BYTES, oversizedError } from './stdin-messages.ts';

/** A server serving over stdio (see {@link serveStdio}). */
export interface StdioServing {
  /** Closes the server and its transport. */
  close(): Promise<void>;
  /** True when the transport closed on its own while stdin was still open: the process should exit 1. */
  failed(): boolean;
}

/**
 * Serves `server` over stdin/stdout with the SDK's stdio transport, stdin reaching it
 * through {@link BoundedMessages}: a message over the SDK's read limit is answered with a
 * JSON-RPC error and the server keeps serving (the transport used to close, and the
 * process exit 0 without a word). `stop` is called when stdin ends (the client is gone)
 * or the transport closes; a close while stdin is still open is logged and `failed()`.
 */
export async function serveStdio(server: McpServer, { log, stop }: { log(line: string): void; stop(): void }): Promise<StdioServing> {
  let stdinEnded = false;
  let closing = false;
  let failed = false;
  const input = new BoundedMessages((message) => {
    log(`refused a message of ${message.bytes} bytes (the limit is ${MAX_MESSAGE_BYTES}): answered with an error, still serving`);
    transport.send(oversizedError(message)).catch((err: Error) => log(`could not answer it: ${err.message}`));
  });
  process.stdin.pipe(input);
  // Lines reach the transport one at a time and none is over the limit: its own buffer never fills.
  const transport = new StdioServerTransport(input, process.stdout, { maxBufferSize: 2 * MAX_MESSAGE_BYTES });
  transport.onerror = (err) => log(`stdio: ${err.message}`);
  transport.onclose = () => {
    if (!stdinEnded && !closing) {
      log('the stdio transport closed while stdin was still open; stopping');
      failed = true;
    }
    stop();
  };
  process.stdin.once('end', () => {
    stdinEnded = true;
    stop();
  });
  await server.connect(transport);
  return {
    close: () => {
      closing = true;
      return server.close();
    },
    failed: () => failed,
  };
}
