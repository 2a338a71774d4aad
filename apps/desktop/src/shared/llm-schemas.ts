/**
 * Shapes of what the app sends to and stores about an LLM endpoint, as zod schemas: the
 * main process validates IPC input with them, the web twin its own settings form.
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

export const chatMessageSchema = z.strictObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().max(1_000_000),
});

/** One streamed chat request (the key is added by whoever holds it). */
export const chatRequestSchema = z.strictObject({
  /** Chosen by the renderer; names the stream's deltas and a cancel. */
  requestId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -'),
  messages: z.array(chatMessageSchema).min(1).max(1000),
  temperature: z.number().min(0).max(2).optional(),
});

export type ChatRequest = z.infer<typeof chatRequestSchema>;

/** The first problem of a failed parse, as one line ("messages.0.role: ..."). */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid input';
  const path = issue.path.map(String).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}
