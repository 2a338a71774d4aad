/**
 * What the user sets in the options page, kept in `chrome.storage.local` (the extension's
 * own storage): the LLM endpoint and the relay to sync through. Both are optional.
 */
import { z } from 'zod';

const httpUrl = z.url({ protocol: /^https?$/ });

/** An OpenAI-compatible endpoint: `POST {baseUrl}/chat/completions` with `stream: true`. */
export const LlmSettings = z.object({
  baseUrl: httpUrl,
  model: z.string().trim().min(1),
  apiKey: z.string().optional(),
});
export type LlmSettings = z.infer<typeof LlmSettings>;

/** A relay and a token that grants this namespace's room (from `zeromem-relay token`). */
export const SyncSettings = z.object({
  url: z.url({ protocol: /^wss?$/ }),
  token: z.string().trim().min(1),
  /** From `generateNamespaceKey()`, the same on every device: the relay then stores only ciphertext. */
  encryptionKey: z.string().trim().min(1).optional(),
});
export type SyncSettings = z.infer<typeof SyncSettings>;

/** The host permission pattern an endpoint needs (every port of its host). */
export function originPattern(url: string): string {
  const { protocol, hostname } = new URL(url);
  return `${protocol}//${hostname}/*`;
}

/** The LLM endpoint, when one is set. */
export async function loadLlm(): Promise<LlmSettings | undefined> {
  const parsed = LlmSettings.safeParse((await chrome.storage.local.get('llm')).llm);
  return parsed.success ? parsed.data : undefined;
}

/** The relay, when one is set. */
export async function loadSync(): Promise<SyncSettings | undefined> {
  const parsed = SyncSettings.safeParse((await chrome.storage.local.get('sync')).sync);
  return parsed.success ? parsed.data : undefined;
}
