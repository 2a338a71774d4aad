/** The OpenAI streaming client against a real local HTTP server: deltas, [DONE], and each failure's code. */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../src/app-error.ts';
import { completionsUrl, streamChat, type ChatMessage } from '../src/openai-stream.ts';

const routes: Record<string, (res: ServerResponse) => void> = {
  '/ok/chat/completions': (res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    // Split mid-event, as networks do.
    res.write('data: {"choices":[{"delta":{"role":"assistant"}}]}\n\ndata: {"choices":[{"delta":{"content":"Hel');
    res.write('lo"}}]}\n\n: a comment line\n\ndata: {"choices":[{"delta":{"content":" there"}}]}\n\n');
    res.end('data: [DONE]\n\ndata: {"choices":[{"delta":{"content":"after done"}}]}\n\n');
  },
  '/status/chat/completions': (res) => res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"error":{"message":"bad key"}}'),
  '/garbage/chat/completions': (res) => res.writeHead(200, { 'Content-Type': 'text/event-stream' }).end('data: not json\n\n'),
  '/error/chat/completions': (res) => res.writeHead(200, { 'Content-Type': 'text/event-stream' }).end('data: {"error":{"message":"model not loaded"}}\n\n'),
  '/hang/chat/completions': (res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.write('data: {"choices":[{"delta":{"content":"x"}}]}\n\n');
  },
};

let server: ReturnType<typeof createServer>;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => (routes[req.url ?? ''] ?? ((r: ServerResponse) => r.writeHead(404).end()))(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const messages: ChatMessage[] = [{ role: 'user', content: 'hi' }];
const settings = (path: string) => ({ baseUrl: `${base}/${path}`, model: 'm' });

describe('streamChat', () => {
  it('streams the deltas and stops at [DONE]', async () => {
    const deltas: string[] = [];
    await expect(streamChat({ settings: settings('ok'), messages, onDelta: (d) => deltas.push(d) })).resolves.toBe('Hello there');
    expect(deltas).toEqual(['Hello', ' there']);
  });

  it('gives each failure its code', async () => {
    const code = (path: string, signal?: AbortSignal) => streamChat({ settings: settings(path), messages, onDelta: () => undefined, signal }).then(() => 'resolved', (err) => (isAppError(err) ? err.code : String(err)));
    expect(await code('status')).toBe('LLM_FAILED');
    expect(await code('garbage')).toBe('LLM_FAILED');
    expect(await code('error')).toBe('LLM_FAILED');
    expect(await streamChat({ settings: { baseUrl: 'http://127.0.0.1:1/v1', model: 'm' }, messages, onDelta: () => undefined }).catch((err) => err.code)).toBe('LLM_UNREACHABLE');
    const controller = new AbortController();
    const pending = code('hang', controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect(await pending).toBe('ABORTED');
  });

  it('accepts a base URL with or without the completions path', () => {
    expect(completionsUrl('http://h/v1/')).toBe('http://h/v1/chat/completions');
    expect(completionsUrl('http://h/v1/chat/completions')).toBe('http://h/v1/chat/completions');
  });
});
