/**
 * The agent: one zeromem database in the extension's IndexedDB, one namespace for the
 * browser's user, the embedder shipped in the extension. "remember that …" stores a memory,
 * about "the user" rather than "I" (the words as said kept in `metadata.said`);
 * anything else is answered by the LLM set in the options page with the recalled memories
 * and the current page in the prompt, or, with none set, by showing that prompt.
 */
import { openMemory, type Memory, type MemoryRecord } from '@zeromem/core';
import { openEmbedder } from './embedder.ts';
import { aboutTheUser } from '@zeromem/app-shared/about-the-user';
import { streamChat, type ChatMessage } from '@zeromem/app-shared/openai-stream';
import type { PageSnapshot } from './page.ts';
import { loadLlm, originPattern } from './settings.ts';

export const NAMESPACE = { userId: 'me' } as const;
const DATABASE = 'zeromem-extension';
/** Tokens of recalled memories in a prompt. */
const MEMORY_BUDGET = 400;

let opened: Promise<Memory> | undefined;
/** The memory, opened once per page. */
export function memory(): Promise<Memory> {
  opened ??= openEmbedder().then((embedder) => openMemory({ name: DATABASE, embedder }));
  return opened;
}

/** What the agent answers, and whether something was stored. */
export interface Reply {
  text: string;
  /** The messages sent to the LLM, or that would be sent. */
  prompt?: ChatMessage[];
  /** True when no LLM answered (none is set, or the extension may not reach it). */
  offline?: boolean;
  remembered?: MemoryRecord;
}

const REMEMBER = /^\s*remember(?:\s+that)?\s+(.+)$/is;

/** The messages for an LLM: what is remembered, the page, the user's message. */
function buildPrompt(memories: string, page: PageSnapshot | undefined, message: string): ChatMessage[] {
  const pagePart = page
    ? `The user is on "${page.title}" (${page.url}).${page.text ? `\nThe page's text:\n${page.text}` : '\n(The page has no text.)'}`
    : 'The extension cannot see the page the user is on (allow it in the options page).';
  return [
    { role: 'system', content: `You are a helpful assistant in the user's browser.\nWhat you remember about the user:\n${memories || '(nothing yet)'}\n\n${pagePart}` },
    { role: 'user', content: message },
  ];
}

/** Answers one message; `onDelta` receives the LLM's reply as it streams. */
export async function reply(message: string, page: PageSnapshot | undefined, onDelta: (piece: string) => void = () => undefined): Promise<Reply> {
  const mem = await memory();
  const keep = REMEMBER.exec(message);
  if (keep) {
    const said = keep[1]!.trim();
    const { record } = await mem.remember({ namespace: NAMESPACE, content: aboutTheUser(said), metadata: { said }, tags: ['from-chat'] });
    return { text: `Remembered: "${record.content}"`, remembered: record };
  }
  const { text } = await mem.buildContext({ namespace: NAMESPACE, query: message, budget: MEMORY_BUDGET });
  const prompt = buildPrompt(text, page, message);
  const llm = await loadLlm();
  if (llm && (await chrome.permissions.contains({ origins: [originPattern(llm.baseUrl)] }))) {
    return { text: await streamChat({ settings: llm, apiKey: llm.apiKey, messages: prompt, onDelta }), prompt };
  }
  const shown = prompt.map((m) => `[${m.role}]\n${m.content}`).join('\n\n');
  const why = llm ? `The extension may not reach ${llm.baseUrl} (allow it in the options page)` : 'No LLM is set in the options page';
  return { text: `${why}, so here is the prompt it would be sent:\n\n${shown}`, prompt, offline: true };
}
