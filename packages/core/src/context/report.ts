import type { ContextLayer } from './options.ts';
import type { ChatMessage } from './tokenizer.ts';

/** Why a candidate is not in the context. */
export type DropReason = 'quota' | 'budget' | 'duplicate';

/** A memory (or system instruction) inside the context. */
export interface IncludedItem {
  layer: ContextLayer;
  /** The record id; system instructions are `system:0`, `system:1`, ... */
  id: string;
  /** The recall score; `null` for session turns (chosen by recency) and system instructions. */
  score: number | null;
  /** Tokens of its rendered line (`- content`, or `role: content` for a turn). */
  tokens: number;
  /** True when `maxItemTokens` cut its content. */
  truncated: boolean;
}

/** A candidate that was left out, and why. */
export interface DroppedItem {
  layer: ContextLayer;
  id: string;
  score: number | null;
  /** Tokens its line would have taken. */
  tokens: number;
  /**
   * `budget`: the total budget had no room for it; `quota`: the layers' quotas together
   * (items or tokens) were spent, every layer's unused share already lent (never one full
   * layer while the budget has room); `duplicate`: the same content is already in.
   */
  reason: DropReason;
  /**
   * Why, in numbers: the budget's tokens in use and what it needed, and for `quota` the
   * quotas' items and tokens in use; "as rendered" when the rendered context was counted
   * whole (the final check) rather than line by line; for an older session turn, the newer
   * turn that was left out (turns stay contiguous, so it goes with it); or what it repeats.
   */
  detail: string;
  /** For `duplicate`: the id of the item that holds the same content. */
  duplicateOf?: string;
}

/** How much of the context one layer takes. */
export interface LayerUsage {
  /** Tokens of the layer's section as rendered (header included; for the session layer the larger of its text and chat forms). */
  tokens: number;
  items: number;
  maxItems: number;
  maxTokens: number;
}

/** What `buildContext` did, in tokens. */
export interface ContextReport {
  /** The tokenizer that counted (e.g. `o200k_base`). */
  tokenizer: string;
  budget: number;
  /** `max(textTokens, messageTokens)`: never more than `budget`. */
  tokens: number;
  /** Tokens of `text`. */
  textTokens: number;
  /** Tokens of `messages` in OpenAI's chat format (3 per message + role + content, + 3). */
  messageTokens: number;
  layers: Record<ContextLayer, LayerUsage>;
  /** In the order they were chosen (system, session newest first, then by score). */
  included: IncludedItem[];
  dropped: DroppedItem[];
  /**
   * Tokens of the full history this context replaces: the system instructions and every
   * live memory of the layers' namespaces (every session turn, every long-term and
   * knowledge memory), each rendered whole as in the context, counted line by line.
   * `null` with `fullHistory: false`.
   */
  fullHistoryTokens: number | null;
}

/** What `buildContext` returns: the same context as text and as chat messages, and the report. */
export interface BuiltContext {
  text: string;
  /** A system message (instructions and recalled memories) followed by the session turns. */
  messages: ChatMessage[];
  report: ContextReport;
}
