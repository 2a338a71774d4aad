/**
 * Streams a chat completion from an OpenAI-compatible endpoint (Ollama, LM Studio,
 * llama.cpp's server, vLLM, OpenAI): `POST {baseUrl}/chat/completions` with `stream: true`.
 */
import { createParser } from 'eventsource-parser';
import type { LlmSettings } from './settings.ts';

/** One chat message as OpenAI-compatible endpoints take it. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The completions URL of a base URL (a trailing slash or a full `/chat/completions` is accepted). */
export function completionsUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/chat/completions') ? trimmed : `${trimmed}/chat/completions`;
}

/** Sends the messages, calls `onDelta` with each piece of the reply, resolves with the whole reply. */
export async function streamChat(settings: LlmSettings, messages: ChatMessage[], onDelta: (piece: string) => void): Promise<string> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'text/event-stream' };
  if (settings.apiKey) headers.Authorization = `Bearer ${settings.apiKey}`;
  const response = await fetch(completionsUrl(settings.baseUrl), {
    method: 'POST',
    headers,
    body: JSON.stringify({ model: settings.model, messages, stream: true }),
  }).catch((err: unknown) => {
    throw new Error(`Could not reach ${settings.baseUrl}: ${(err as Error).message}. Is the server running, and did you allow the extension to reach it?`);
  });
  if (!response.ok || !response.body) {
    const detail = (await response.text().catch(() => '')).slice(0, 300);
    throw new Error(`The LLM endpoint answered HTTP ${response.status}${detail ? `: ${detail}` : ''}`);
  }
  let reply = '';
  let failure: Error | undefined;
  let done = false;
  const parser = createParser({
    onEvent(event) {
      if (done || failure) return;
      if (event.data === '[DONE]') {
        done = true;
        return;
      }
      try {
        const chunk = JSON.parse(event.data) as { choices?: Array<{ delta?: { content?: unknown } }>; error?: { message?: string } };
        if (chunk.error) failure = new Error(`The LLM endpoint reported: ${chunk.error.message ?? 'an error'}`);
        const piece = chunk.choices?.[0]?.delta?.content;
        if (typeof piece === 'string' && piece) {
          reply += piece;
          onDelta(piece);
        }
      } catch {
        failure = new Error(`The LLM endpoint sent a stream event that is not JSON: ${event.data.slice(0, 120)}`);
      }
    },
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  try {
    while (!done && !failure) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
  if (failure) throw failure;
  return reply;
}
