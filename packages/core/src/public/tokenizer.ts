// Token counting: the tokenizer a context is budgeted with, and chat messages.

import type { ConversationTurn } from './recall.ts';

/** A chat message as LLM chat APIs take it (the same shape recall takes a conversation in). */
export type ChatMessage = ConversationTurn;

/**
 * Counts tokens the way the caller's LLM will. Context budgets are measured with it, so
 * it should be the tokenizer of the model the context is sent to.
 */
export interface Tokenizer {
  /** Names the tokenizer in reports, e.g. `"o200k_base"`. */
  readonly id: string;
  /** Tokens of a text. Any text is plain text: special-token strings such as `<|endoftext|>` are counted as ordinary characters. */
  count(text: string): number;
  /** The longest prefix of `text` with at most `maxTokens` tokens. */
  truncate(text: string, maxTokens: number): string;
  /** Tokens of a chat prompt, wrappers included. Default: see {@link countChatTokens}. */
  countMessages?(messages: readonly ChatMessage[]): number;
}

/** The BPE encodings the default tokenizer ships. */
export type Encoding = 'o200k_base' | 'cl100k_base';
