/**
 * `@zeromem/mcp`: zeromem as an MCP server (bin `zeromem-mcp`): memory tools over stdio
 * or Streamable HTTP, bound to one namespace chosen by whoever starts the server.
 */
export { createMemoryServer, SERVER_INFO, type MemoryServerOptions } from './server.ts';
export { startHttpServer, type HttpEndpoint, type HttpOptions } from './http.ts';
export { main } from './main.ts';
