import type { ChatMessage, Tokenizer } from '../public/tokenizer.ts';
import { countChatTokens } from './tokenizer.ts';
import type { LlmSpend, LlmUsage } from '../public/llm-hook.ts';

/** A fresh, zero {@link LlmSpend}. */
export function noSpend(): LlmSpend {
  return { calls: 0, promptTokens: 0, completionTokens: 0, countedLocally: 0 };
}

/** Adds one call to `spend`: the reported usage, or the prompt and output counted with `tokenizer`. */
export function addSpend(spend: LlmSpend, tokenizer: Tokenizer, prompt: readonly ChatMessage[], output: string[], usage: LlmUsage | undefined): void {
  spend.calls++;
  if (usage && Number.isFinite(usage.promptTokens) && Number.isFinite(usage.completionTokens)) {
    spend.promptTokens += usage.promptTokens;
    spend.completionTokens += usage.completionTokens;
    return;
  }
  spend.countedLocally++;
  spend.promptTokens += countChatTokens(tokenizer, prompt);
  spend.completionTokens += output.reduce((sum, text) => sum + tokenizer.count(text), 0);
}
