import { invalidInput } from '../model/errors.ts';
import type { ConversationTurn } from '../public/recall.ts';
import type { Tokenizer, ChatMessage, Encoding } from '../public/tokenizer.ts';

/** Per-message overhead of OpenAI's chat format (role and separators), and of priming the reply. */
const TOKENS_PER_MESSAGE = 3;
const REPLY_PRIMING = 3;

/**
 * Tokens of a chat prompt as OpenAI counts them: per message 3 + role + content, plus 3 for
 * the reply; no messages cost nothing. Uses the tokenizer's own `countMessages` when it has one.
 */
export function countChatTokens(tokenizer: Tokenizer, messages: readonly ChatMessage[]): number {
  if (messages.length === 0) return 0;
  if (tokenizer.countMessages) return tokenizer.countMessages(messages);
  let total = REPLY_PRIMING;
  const count = (text: string) => tokenizer.count(text);
  for (const message of messages) total += chatMessageTokens(count, message);
  return total;
}

/** One message's share of the default {@link countChatTokens} (without the reply priming). */
export function chatMessageTokens(count: (text: string) => number, message: ChatMessage): number {
  return TOKENS_PER_MESSAGE + count(message.role) + count(message.content);
}

interface BpeModule {
  encode(text: string, options: { disallowedSpecial: Set<string> }): number[];
  decode(tokens: number[]): string;
}

const NO_SPECIAL = { disallowedSpecial: new Set<string>() };

/**
 * The default tokenizer: OpenAI's BPE from `gpt-tokenizer`, which ships its ranks and
 * works offline. `o200k_base` (GPT-4o and later, the default) or `cl100k_base` (GPT-4,
 * GPT-3.5). Loaded on first use, so opening a memory does not pay for the ranks.
 * @throws ZeromemError INVALID_INPUT for an unknown encoding
 */
export async function createTokenizer(encoding: Encoding = 'o200k_base'): Promise<Tokenizer> {
  let bpe: BpeModule;
  // Literal specifiers: bundlers see both, and core's import check can read them.
  if (encoding === 'o200k_base') bpe = await import('gpt-tokenizer/encoding/o200k_base');
  else if (encoding === 'cl100k_base') bpe = await import('gpt-tokenizer/encoding/cl100k_base');
  else throw invalidInput('tokenizer', [{ path: 'encoding', message: `must be "o200k_base" or "cl100k_base", got ${JSON.stringify(encoding)}` }]);
  return {
    id: encoding,
    count: (text) => {
      let total = 0;
      for (const piece of bpePieces(text)) total += bpe.encode(piece, NO_SPECIAL).length;
      return total;
    },
    truncate: (text, maxTokens) => {
      let kept = '';
      let left = Math.max(0, maxTokens);
      for (const piece of bpePieces(text)) {
        const tokens = bpe.encode(piece, NO_SPECIAL);
        if (tokens.length > left) {
          // A cut inside a multi-byte character decodes to U+FFFD: drop it.
          return kept + bpe.decode(tokens.slice(0, left)).replace(/\uFFFD+$/u, '');
        }
        kept += piece;
        left -= tokens.length;
      }
      return text;
    },
  };
}

/**
 * Longest run of non-space characters handed to the BPE whole. BPE merges a pre-token's
 * pairs one at a time, rescanning the token each time (gpt-tokenizer, like tiktoken), so a
 * run costs the square of its length: one 64 KB word took 2 s to count, 1 MB minutes.
 * Longer runs are counted in windows of this many characters: linear in the text (a 64 KB
 * word 18x faster, a 1 MB one seconds instead of minutes: docs/BENCHMARKS.md), and about a
 * token per window off the model's own count for such text (0.02% on a random 16 KB word),
 * which no ordinary text holds.
 */
const MAX_RUN = 1000;
const LONG_RUN = new RegExp(`\\S{${MAX_RUN + 1},}`, 'gu');

/** The text in the pieces the BPE encodes one by one: the text itself, unless it holds a run longer than {@link MAX_RUN}. */
function bpePieces(text: string): string[] {
  if (text.length <= MAX_RUN) return [text];
  const pieces: string[] = [];
  let at = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    if (match.index > at) pieces.push(text.slice(at, match.index));
    const end = match.index + match[0].length;
    for (let start = match.index; start < end; ) {
      let stop = Math.min(start + MAX_RUN, end);
      if (stop < end && isLowSurrogate(text.charCodeAt(stop))) stop++; // never half a character
      pieces.push(text.slice(start, stop));
      start = stop;
    }
    at = end;
  }
  if (at < text.length) pieces.push(text.slice(at));
  return pieces;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** True when `value` has the shape of a {@link Tokenizer}. */
export function isTokenizer(value: unknown): value is Tokenizer {
  const t = value as Tokenizer;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof t.id === 'string' &&
    typeof t.count === 'function' &&
    typeof t.truncate === 'function' &&
    (t.countMessages === undefined || typeof t.countMessages === 'function')
  );
}
