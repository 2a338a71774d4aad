/**
 * The one mock of the app's tests: an OpenAI-compatible chat completions server (the LLM is
 * outside the product). It streams Server-Sent Events like OpenAI/Ollama do, answers CORS
 * preflights (the web twin calls it from the page), records every request, and replies by
 * a small script: the after-sales agent remembers what the user tells it (memory tool
 * lines), the marketing agent repeats the facts its prompt recalled.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  model: string;
  stream: boolean;
  messages: Array<{ role: string; content: string }>;
  authorization: string | undefined;
}

export interface MockLlm {
  /** The base URL to configure, e.g. http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

/** The scripted reply to a request. */
export function scriptedReply(messages: RecordedRequest['messages']): string {
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  const lastUser = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  if (system.includes('after-sales agent')) {
    const lines = ['Thanks, I have noted it.'];
    if (/charging port/i.test(lastUser)) lines.push('I am opening a repair work order for the loose charging port.', "REMEMBER: The charging port of the user's phone is loose.");
    if (/call me/i.test(lastUser)) lines.push('We will phone you.', 'REMEMBER: The user prefers phone calls over e-mail.', 'NOTE: Offer a callback slot next time.');
    return lines.join('\n');
  }
  const recalled = system
    .split('\n')
    .filter((line) => line.startsWith('- '))
    .map((line) => line.slice(2));
  return recalled.length ? `From our shared memory: ${recalled.join(' ')}` : 'I know nothing about this user yet.';
}

export async function startMockLlm(): Promise<MockLlm> {
  const requests: RecordedRequest[] = [];
  const cors = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': 'content-type, authorization, accept', 'Access-Control-Allow-Methods': 'POST, OPTIONS' };
  const server: Server = createServer(async (req, res) => {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors).end();
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, cors).end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    const body = JSON.parse(await readBody(req)) as Omit<RecordedRequest, 'authorization'>;
    requests.push({ model: body.model, stream: body.stream, messages: body.messages, authorization: req.headers.authorization });
    res.writeHead(200, { ...cors, 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    const reply = scriptedReply(body.messages);
    // Word by word, as a real server streams tokens.
    for (const piece of reply.match(/\S+\s*|\s+/g) ?? []) {
      res.write(`data: ${JSON.stringify({ id: 'mock', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: piece } }] })}\n\n`);
    }
    res.write(`data: ${JSON.stringify({ id: 'mock', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
