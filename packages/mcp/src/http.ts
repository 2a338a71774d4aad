import { createHash, timingSafeEqual } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { NextFunction, Request, Response } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** Options of {@link startHttpServer}. */
export interface HttpOptions {
  host: string;
  port: number;
  /** The bearer token every request must carry. */
  token: string;
  /** Host header names accepted; default: the loopback names (the SDK's DNS-rebinding protection). */
  allowedHosts?: string[] | undefined;
  /** Origins accepted; a request with any other Origin header is refused (403). */
  allowedOrigins: string[];
  /** A server for one request (stateless Streamable HTTP: every request is answered on its own). */
  serverFor: () => McpServer;
}

/** A running HTTP endpoint. */
export interface HttpEndpoint {
  /** `http://host:port/mcp`. */
  url: string;
  close(): Promise<void>;
}

const rpcError = (message: string, code = -32000) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

/** Answers a JSON-RPC error as JSON (never an HTML page, a stack or a path). */
function answerError(res: ServerResponse, status: number, message: string, code?: number, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(rpcError(message, code));
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/**
 * Serves MCP over Streamable HTTP (stateless, JSON responses) at `/mcp`. Before anything of
 * a request's body is read, a browser Origin must be allowed and the bearer token (compared
 * in constant time) must be right; then the SDK's app checks the Host header (loopback
 * names unless told otherwise) and parses the body. Every error is answered as a JSON-RPC
 * error object, without internals.
 */
export async function startHttpServer(options: HttpOptions): Promise<HttpEndpoint> {
  const app = createMcpExpressApp({ host: options.host, ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}) });
  app.post('/mcp', async (req, res) => {
    const server = options.serverFor();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  const notAllowed = (_req: Request, res: Response) => answerError(res, 405, 'This server is stateless: send JSON-RPC requests with POST /mcp.');
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);
  app.use((_req: Request, res: Response) => answerError(res, 404, 'Not found: the MCP endpoint is POST /mcp.'));
  // Express's own error pages are HTML with the stack: every error is answered here instead.
  app.use((err: { status?: number; type?: string }, req: Request, res: Response, _next: NextFunction) => {
    if (err.type === 'entity.parse.failed') answerError(res, 400, 'Parse error: the request body is not JSON.', -32700);
    else if (err.type === 'entity.too.large') {
      answerError(res, 413, 'The request body is too large (at most 100 KB).', -32000, { connection: 'close' });
      discardBody(req);
    }
    else if (err.status !== undefined && err.status >= 400 && err.status < 500) answerError(res, err.status, 'The request cannot be read.');
    else {
      process.stderr.write(`zeromem-mcp: request failed: ${String((err as Error).message)}\n`);
      answerError(res, 500, 'Internal error.', -32603);
    }
  });

  const expected = digest(options.token);
  const admit = (req: IncomingMessage, res: ServerResponse): boolean => {
    const origin = req.headers.origin;
    if (origin !== undefined && !options.allowedOrigins.includes(origin)) {
      answerError(res, 403, `Origin ${origin} is not allowed: start the server with --allowed-origin ${origin} to accept it.`, -32000, { connection: 'close' });
      return false;
    }
    const match = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
    if (!match) {
      answerError(res, 401, 'Missing bearer token: send "Authorization: Bearer <ZEROMEM_MCP_TOKEN>".', -32000, { connection: 'close', 'www-authenticate': 'Bearer error="invalid_request"' });
      return false;
    }
    if (!timingSafeEqual(digest(match[1]!), expected)) {
      answerError(res, 401, 'Wrong bearer token: use the value of ZEROMEM_MCP_TOKEN the server was started with.', -32000, { connection: 'close', 'www-authenticate': 'Bearer error="invalid_token"' });
      return false;
    }
    return true;
  };
  const http: Server = createServer((req, res) => {
    if (admit(req, res)) app(req, res);
    else discardBody(req);
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** Most bytes of a refused request's body read (and dropped) so the answer reaches its client; past it the connection is cut. */
const MAX_DISCARDED_BYTES = 1024 * 1024;

/**
 * The body of a refused request is never parsed: it is read off the connection and dropped
 * (a client still sending it would otherwise miss the answer); the answer closes the
 * connection.
 */
function discardBody(req: IncomingMessage): void {
  let seen = 0;
  req.on('data', (chunk: Buffer) => {
    seen += chunk.byteLength;
    if (seen > MAX_DISCARDED_BYTES) req.socket.destroy();
  });
  req.resume();
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
