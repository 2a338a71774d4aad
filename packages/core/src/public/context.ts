// `buildContext`: its options (layers, quotas, budget) and the context it builds, with its report.

import type { ChatMessage } from './tokenizer.ts';
import type { ConversationTurn } from './recall.ts';
import type { Namespace, TimeInput } from './memory-record.ts';

/**
 * The layers of a context, in the order they are filled: system first, then the profile
 * (the namespace's current keyed facts), knowledge last.
 */
export type ContextLayer = 'system' | 'profile' | 'session' | 'long_term' | 'knowledge';

/**
 * A memory layer's share of the context. Unset quotas are the defaults; tokens default to
 * the whole budget. A share, not a cap: the layer takes it first, and what the layers leave
 * unused (items and tokens) goes to the candidates of any layer still out while the total
 * budget, the only hard cap, has room.
 */
export interface LayerQuota {
  /** Most items, 0..1000. Defaults: profile 20, session 50, long_term 20, knowledge 20. */
  maxItems?: number;
  /** Most tokens of the layer's rendered section, header included. Default: the total budget. */
  maxTokens?: number;
  /** Read this layer from another namespace (e.g. the user's own while the agent's is `namespace`). */
  namespace?: Namespace;
}

/** Options of `memory.buildContext`. Only `namespace` is required. */
export interface BuildContextOptions {
  /** The namespace the layers read from (each layer can name another one). */
  namespace: Namespace;
  /** What the context is for: a text, or the conversation so far. Default: the session turns that were selected; with none, the long-term and knowledge layers hold their latest memories. */
  query?: string | ConversationTurn[];
  /** The time recency is measured from. Default: the clock. */
  now?: TimeInput;
  /** Most tokens of the whole rendered context, as text and as chat messages. Default 2000. */
  budget?: number;
  /** Fixed instructions, always included first. A budget too small for them is INVALID_INPUT. */
  system?: string | string[];
  /** Only this session's turns (`metadata.session`) form the session layer. Default: every live session-layer memory. */
  sessionId?: string;
  /**
   * Per-layer quotas; `false` leaves a memory layer out. `system` takes only `maxTokens`.
   * `profile` holds the namespace's current keyed facts (`key: content (since date)`), first;
   * a fact in it is never repeated in a lower layer.
   */
  layers?: {
    system?: { maxTokens?: number };
    profile?: LayerQuota | false;
    session?: LayerQuota | false;
    long_term?: LayerQuota | false;
    knowledge?: LayerQuota | false;
  };
  /** Longer memories are cut to this many tokens (marked with "…"). Default: never cut. */
  maxItemTokens?: number;
  /** Count the full history this context replaces (one pass over the layers' namespaces). Default true. */
  fullHistory?: boolean;
  /** Count the long-term and knowledge memories that made it into the context as accesses (heat), as recall hits are. Default true. */
  trackAccess?: boolean;
  /** Keyed facts as they held at this time (profile and recalled layers). Default: now. */
  asOf?: TimeInput;
  /** Closed versions of keyed facts may be recalled too (the profile stays current). Default false. */
  includeClosed?: boolean;
  /**
   * The recalled layers (long-term, knowledge) take only memories at least this relevant
   * (recall's `minRelevance`, 0..1). Default: recall's: a query nothing is about (no
   * candidate reaches `DEFAULT_MIN_RELEVANCE`, 0.01) adds no memory to the context, else the
   * best candidates fill them; 0 fills them whatever the relevance.
   */
  minRelevance?: number;
}

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
