// The caller's LLM, as a session's summaries call it, and what it spent.

import type { ChatMessage } from './tokenizer.ts';

/** Tokens one LLM call spent, as the LLM's API reported them. */
export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
}

/**
 * An LLM the caller lends to zeromem for optional work. zeromem never calls an LLM on its
 * own: without a hook nothing here runs, and with one only the calls the caller asks
 * for (e.g. `session.end({ extractFacts: true })`). Return `usage` when your API reports
 * it; otherwise the prompt and completion are counted with the memory's tokenizer.
 */
export interface LlmHook {
  /** Standalone facts worth keeping from a conversation (oldest turn first). */
  extractFacts?(turns: readonly ChatMessage[]): Promise<{ facts: string[]; usage?: LlmUsage }>;
  /** One text that stands for several memories. */
  summarize?(texts: readonly string[]): Promise<{ summary: string; usage?: LlmUsage }>;
}

/** Every token an {@link LlmHook} spent, kept apart from memory operations (which spend none). */
export interface LlmSpend {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Calls whose usage the hook did not report, counted with the tokenizer instead. */
  countedLocally: number;
}
