// A conversation session: its options, a turn's options, and the report at its end.

import type { BuildContextOptions } from './context.ts';
import type { Duration, Namespace } from './memory-record.ts';
import type { LlmHook, LlmSpend } from './llm-hook.ts';

/** Options of `memory.session()`. Only `namespace` is required. */
export interface SessionOptions {
  namespace: Namespace;
  /** Names the conversation (stored as `metadata.session` on each turn). Default: a random UUID. */
  id?: string;
  /** How long a turn lives unless promoted. Default `"1d"`. */
  ttl?: Duration;
  /** Defaults for every `context()` call (budget, system, layers, ...). */
  context?: Omit<BuildContextOptions, 'namespace' | 'query' | 'sessionId'>;
  /** An LLM for `end({ extractFacts, summarize })`. Without it, nothing ever calls an LLM. */
  llm?: LlmHook;
}

/** Options of `addTurn`. */
export interface TurnOptions {
  /** Keep this turn: `end()` moves it to long-term memory instead of letting it expire. */
  durable?: boolean;
  tags?: string[];
  /** 0..1; matters once promoted. */
  importance?: number;
}

/** What `session.end()` did. */
export interface SessionEndReport {
  /** Turns marked durable, now long-term memories without expiry. */
  promoted: string[];
  /** Turns left to expire with their TTL. */
  expiring: number;
  /** Long-term memories written from facts the LLM hook extracted. */
  extracted: string[];
  /** The long-term memory holding the LLM hook's summary, when asked for. */
  summaryId: string | null;
  /** What the LLM hook spent (all zero unless asked for). */
  llm: LlmSpend;
}
