/**
 * What the user sets in the options page, kept in `chrome.storage.local` (the extension's
 * own storage): the LLM endpoint (the apps' shared schema, with its key) and the relay to
 * sync through. Both are optional.
 */
import { llmSettingsWithKeySchema, type LlmSettingsWithKey } from '@zeromem/app-shared/llm-settings';
import { z } from 'zod';

/** An OpenAI-compatible endpoint and its key: the apps' one settings schema. */
export const LlmSettings = llmSettingsWithKeySchema;
export type LlmSettings = LlmSettingsWithKey;

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
