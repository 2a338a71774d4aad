/**
 * The LLM endpoint settings of every example app (the desktop app, its web twin and the
 * extension), as zod schemas: one shape, one set of rules and messages wherever a user
 * enters an endpoint.
 */
import { z } from 'zod';

/** An OpenAI-compatible base URL: http(s), no credentials, e.g. `http://127.0.0.1:11434/v1`. */
export const baseUrlSchema = z
  .string()
  .trim()
  .max(2048)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// URL without user:password, e.g. http://127.0.0.1:11434/v1');

/** What the user configures. `apiKey` is optional: local servers need none. */
export const llmSettingsSchema = z.strictObject({
  baseUrl: baseUrlSchema,
  model: z.string().trim().min(1, 'must name a model, e.g. llama3.2').max(256),
});

export type LlmSettings = z.infer<typeof llmSettingsSchema>;

/** Saving settings: the key is optional; `null` deletes a stored key, undefined keeps it. */
export const saveLlmSettingsSchema = llmSettingsSchema.extend({
  apiKey: z.string().max(4096).nullable().optional(),
});

export type SaveLlmSettings = z.infer<typeof saveLlmSettingsSchema>;

/**
 * Settings kept with their key by a page that holds the key itself (the extension's
 * `chrome.storage.local`); the desktop app keeps its key apart, in the OS keychain.
 */
export const llmSettingsWithKeySchema = llmSettingsSchema.extend({
  apiKey: z.string().max(4096).optional(),
});

export type LlmSettingsWithKey = z.infer<typeof llmSettingsWithKeySchema>;

/** The first problem of a failed parse, as one line ("messages.0.role: ..."). */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid input';
  const path = issue.path.map(String).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}
