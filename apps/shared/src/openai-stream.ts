/**
 * Streams a chat completion from an OpenAI-compatible endpoint (`POST {baseUrl}/chat/completions`
 * with `stream: true`; Ollama, LM Studio, llama.cpp's server, vLLM and OpenAI speak it).
 * The one client of every example app: the web twin calls it in the page, the Electron
 * main process for its renderer (it holds the key), the extension in its side panel.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { AppError } from './app-error.ts';
import type { LlmSettings } from './llm-settings.ts';

/** One chat message as OpenAI-compatible endpoints take it. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
}

export interface StreamChatOptions {
  settings: LlmSettings;
  apiKey?: string | null | undefined;
  messages: ChatMessage[];
  temperature?: number | undefined;
  onDelta: (text: string) => void;
  signal?: AbortSignal | undefined;
  fetch?: typeof fetch;
}

/** The completions URL of a base URL (a trailing slash or a full `/chat/completions` is accepted). */
export function completionsUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/chat/completions') ? trimmed : `${trimmed}/chat/completions`;
}

/**
 * Sends the messages and calls `onDelta` with each piece of the reply; resolves with the
 * whole reply. @throws AppError LLM_UNREACHABLE, LLM_FAILED, ABORTED
 */
export async function streamChat(options: StreamChatOptions): Promise<string> {
  const doFetch = options.fetch ?? fetch;
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'text/event-stream' };
  if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;
  let response: Response;
  try {
    response = await doFetch(completionsUrl(options.settings.baseUrl), {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: options.settings.model, messages: options.messages, stream: true, ...(options.temperature !== undefined ? { temperature: options.temperature } : {}) }),
      signal: options.signal ?? null,
    });
  } catch (err) {
    if (options.signal?.aborted) throw new AppError('ABORTED', 'The request was cancelled.');
    throw new AppError('LLM_UNREACHABLE', `Could not reach ${options.settings.baseUrl}: ${(err as Error).message}. Is the server running, and may this app reach it (in a browser: does it allow this page's origin, CORS; in the extension: did you allow it in the options page)?`);
  }
  if (!response.ok || !response.body) {
    const detail = (await response.text().catch(() => '')).slice(0, 300);
    throw new AppError('LLM_FAILED', `The LLM endpoint answered HTTP ${response.status}${detail ? `: ${detail}` : ''}`);
  }
  let reply = '';
  let failure: AppError | undefined;
  let done = false;
  const parser = createParser({
    onEvent(event: EventSourceMessage) {
      if (done || failure) return;
      if (event.data === '[DONE]') {
        done = true;
        return;
      }
      let chunk: { choices?: Array<{ delta?: { content?: unknown } }>; error?: { message?: string } };
      try {
        chunk = JSON.parse(event.data);
      } catch {
        failure = new AppError('LLM_FAILED', `The LLM endpoint sent a stream event that is not JSON: ${event.data.slice(0, 120)}`);
        return;
      }
      if (chunk.error) {
        failure = new AppError('LLM_FAILED', `The LLM endpoint reported: ${chunk.error.message ?? 'an error'}`);
        return;
      }
      const piece = chunk.choices?.[0]?.delta?.content;
      if (typeof piece === 'string' && piece !== '') {
        reply += piece;
        options.onDelta(piece);
      }
    },
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      parser.feed(decoder.decode(value, { stream: true }));
      if (failure || done) break;
    }
  } catch (err) {
    if (options.signal?.aborted) throw new AppError('ABORTED', 'The request was cancelled.');
    throw new AppError('LLM_UNREACHABLE', `The stream from ${options.settings.baseUrl} broke off: ${(err as Error).message}`);
  } finally {
    reader.cancel().catch(() => undefined);
  }
  if (failure) throw failure;
  return reply;
}
