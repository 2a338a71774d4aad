import { createHash, timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
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

const rpcError = (message: string) => ({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });

/**
 * Serves MCP over Streamable HTTP (stateless, JSON responses) at `/mcp`: the Host header
 * is checked (loopback names unless told otherwise), a browser Origin must be allowed,
 * and every request needs the bearer token, compared in constant time.
 */
export async function startHttpServer(options: HttpOptions): Promise<HttpEndpoint> {
  const app = createMcpExpressApp({ host: options.host, ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}) });
  app.use((req, res, next) => {
    const origin = req.headers.origin;
    if (origin !== undefined && !options.allowedOrigins.includes(origin)) {
      res.status(403).json(rpcError(`Origin ${origin} is not allowed: start the server with --allowed-origin ${origin} to accept it.`));
      return;
    }
    next();
  });
  const expected = digest(options.token);
  app.use(
    requireBearerAuth({
      verifier: {
        verifyAccessToken: async (token) => {
          if (!timingSafeEqual(digest(token), expected)) throw new InvalidTokenError('Wrong bearer token: use the value of ZEROMEM_MCP_TOKEN the server was started with.');
          return { token, clientId: 'zeromem-mcp', scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 };
        },
      },
    }),
  );
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
  const notAllowed = (_req: unknown, res: { status(code: number): { json(body: unknown): void } }) => res.status(405).json(rpcError('This server is stateless: send JSON-RPC requests with POST /mcp.'));
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);

  const http: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(options.port, options.host, () => resolve(listening));
    listening.once('error', reject);
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

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
