/**
 * The chat request the renderer sends the Electron main process (which adds the key), as
 * zod schemas the main process validates IPC input with. The LLM settings themselves are
 * the apps' shared schema (`@zeromem/app-shared/llm-settings`).
 */
import { z } from 'zod';

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
