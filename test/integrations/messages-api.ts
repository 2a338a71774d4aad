/**
 * A stand-in for Anthropic's Messages API (the only mock these tests use: an LLM server):
 * it answers `POST /v1/messages` with the responses of a session, in order, and records
 * what the client sent. As a `fetch` for a client's options, or on a loopback port for a
 * client that reads `ANTHROPIC_BASE_URL` (the README examples, run as a reader runs them).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A `tool_use` block of a response. */
export interface ToolUse {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown> & { command: string };
}

/** A conversation: the user's prompt and the model's responses to each request, in order. */
export interface Session {
  prompt: string;
  responses: Array<{ id: string; content: Array<{ type: string } & Partial<ToolUse>>; stop_reason: string }>;
}

/** What a client sent: the Messages API request body and its headers. */
export interface SentRequest {
  url: string;
  headers: Headers;
  body: { model: string; tools?: Array<Record<string, unknown>>; messages: Array<{ role: string; content: string | Array<Record<string, unknown>> }> };
}

/** fixtures/claude-memory-session.json: Claude using its memory tool with each of the six commands. */
export const memorySession = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'claude-memory-session.json'), 'utf8')) as Session;

/** The `tool_use` blocks of a session's responses, in order. */
export function toolUsesOf(session: Session): ToolUse[] {
  return session.responses.flatMap((response) => response.content.filter((block): block is ToolUse => block.type === 'tool_use'));
}

/**
 * A `fetch` that answers the session's responses in order, as the Messages API does (JSON,
 * status 200), and the requests it got. Any other request, or one past the last response,
 * is refused with an error (the client fails, and so does the test).
 */
export function messagesApi(session: Session) {
  const requests: SentRequest[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    if (new URL(url).pathname !== '/v1/messages' || init?.method !== 'POST') throw new Error(`unexpected request: ${init?.method} ${url}`);
    const answer = session.responses[requests.length];
    requests.push({ url, headers: new Headers(init.headers), body: JSON.parse(String(init.body)) as SentRequest['body'] });
    if (answer === undefined) throw new Error(`request ${requests.length} has no response in the session`);
    return new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/json', 'request-id': `req_${requests.length}` } });
  };
  return { fetch: fetch as typeof globalThis.fetch, requests };
}

/** The same on a loopback port: `url` is the origin (`http://127.0.0.1:PORT`, no `/v1`). */
export async function serveMessagesApi(session: Session) {
  const api = messagesApi(session);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      api
        .fetch(`http://${req.headers.host}${req.url}`, { method: req.method!, headers, body: Buffer.concat(chunks).toString('utf8') })
        .then(async (response) => {
          res.writeHead(response.status, Object.fromEntries(response.headers));
          res.end(await response.text());
        })
        .catch((err: Error) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: err.message } }));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: api.requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The text of a `tool_result` block's content (a string, or text blocks). */
export function resultText(block: Record<string, unknown>): string {
  const content = block.content as string | Array<{ type: string; text?: string }>;
  return typeof content === 'string' ? content : content.map((part) => part.text ?? '').join('');
}

/** The `tool_result` blocks of a request's last message (the user turn that answers the tool calls). */
export function toolResults(request: SentRequest): Array<Record<string, unknown>> {
  const last = request.body.messages.at(-1)!;
  if (last.role !== 'user' || typeof last.content === 'string') return [];
  return last.content.filter((block) => block.type === 'tool_result');
}
