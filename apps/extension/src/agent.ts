/**
 * The agent's memory: one zeromem database in the extension's IndexedDB, one namespace for
 * the browser's user. Replies are offline: they show the prompt an LLM would be sent.
 */
import { openMemory, type Memory, type MemoryRecord } from '@zeromem/core';

export const NAMESPACE = { userId: 'me' } as const;
const DATABASE = 'zeromem-extension';

let opened: Promise<Memory> | undefined;
/** The memory, opened once per page. */
export function memory(): Promise<Memory> {
  opened ??= openMemory({ name: DATABASE });
  return opened;
}

/** What the agent answers, and whether something was stored. */
export interface Reply {
  text: string;
  remembered?: MemoryRecord;
}

const REMEMBER = /^\s*remember(?:\s+that)?\s+(.+)$/is;

/** "remember that …" stores a memory; anything else is answered with recalled memories in the prompt. */
export async function reply(message: string, page: { title: string; url: string }): Promise<Reply> {
  const mem = await memory();
  const keep = REMEMBER.exec(message);
  if (keep) {
    const { record } = await mem.remember({ namespace: NAMESPACE, content: keep[1]!.trim(), tags: ['from-chat'] });
    return { text: `Remembered: "${record.content}"`, remembered: record };
  }
  const { text } = await mem.buildContext({ namespace: NAMESPACE, query: message, budget: 400 });
  const prompt = `${text}\n\nThe user is on "${page.title}" (${page.url}).\nUser: ${message}`;
  return { text: `No LLM is set in the options page, so here is the prompt it would be sent:\n\n${prompt}` };
}
