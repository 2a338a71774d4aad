import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One chat-completions message as an OpenAI-compatible client sends it. */
export interface ChatMessage {
  role: string;
  content: string | null;
  tool_calls?: Array<{ function: { name: string; arguments: string } }>;
}

/** What the scripted LLM answers: a tool call or a text. */
export type LlmReply = { tool: string; input: unknown } | { text: string };

/** A running fake LLM server and the requests it answered. */
export interface LlmServer {
  /** The base URL, e.g. `http://127.0.0.1:PORT/v1`. */
  url: string;
  requests: Array<{ messages: ChatMessage[]; tools: unknown[] }>;
  close(): Promise<void>;
}

/**
 * A scripted OpenAI-compatible chat-completions server on loopback: the only mock these
 * tests use (an LLM server). Each request is answered by `reply(messages)`.
 */
export async function startLlmServer(reply: (messages: ChatMessage[]) => LlmReply): Promise<LlmServer> {
  const requests: LlmServer['requests'] = [];
  let calls = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const request = JSON.parse(body) as { model: string; messages: ChatMessage[]; tools?: unknown[] };
      requests.push({ messages: request.messages, tools: request.tools ?? [] });
      const answer = reply(request.messages);
      calls++;
      const message =
        'tool' in answer
          ? { role: 'assistant', content: null, tool_calls: [{ id: `call_${calls}`, type: 'function', function: { name: answer.tool, arguments: JSON.stringify(answer.input) } }] }
          : { role: 'assistant', content: answer.text };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${calls}`,
          object: 'chat.completion',
          created: 0,
          model: request.model,
          choices: [{ index: 0, message, finish_reason: 'tool' in answer ? 'tool_calls' : 'stop' }],
          usage: { prompt_tokens: body.length, completion_tokens: 1, total_tokens: body.length + 1 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
