import type { BuildContextOptions, BuiltContext, ConversationTurn, Memory, Namespace } from '@zeromem/core';
import type { LanguageModelMiddleware } from 'ai';
import { bindMemory } from '@zeromem/tools';

type TransformParams = NonNullable<LanguageModelMiddleware['transformParams']>;
type CallParams = Parameters<TransformParams>[0]['params'];
type PromptMessage = CallParams['prompt'][number];

/** Options of {@link memoryContextMiddleware}. */
export interface MemoryContextOptions extends Omit<BuildContextOptions, 'namespace' | 'query'> {
  /** The open memory (`openMemory()` of `@zeromem/core`). */
  memory: Memory;
  /** The namespace the context is read from, chosen by you (never by the model). */
  namespace: Namespace;
  /**
   * Called with every context that was put into a call: its text and its token report
   * (`report.tokens` is what memory added to the prompt). Each step of a tool loop is a call.
   */
  onContext?: (context: BuiltContext) => void;
  /** Characters of the latest conversation turns used as the recall query. Default 4,000. */
  queryChars?: number;
}

/**
 * A language-model middleware (`wrapLanguageModel`) that puts a budgeted zeromem context
 * (`memory.buildContext`) into every call: the conversation's latest turns are the query,
 * the rendered context goes in as a system message after your own instructions. The
 * session layer is off unless you set `layers.session`, as the prompt already holds the
 * conversation. Building it calls no LLM; its tokens are reported to `onContext`.
 *
 * @example llm
 * const model = wrapLanguageModel({ model: yourModel, middleware: memoryContextMiddleware({ memory, namespace, budget: 800 }) });
 */
export function memoryContextMiddleware(options: MemoryContextOptions): LanguageModelMiddleware {
  const { memory, namespace } = bindMemory(options, 'memoryContextMiddleware()');
  const { memory: _memory, namespace: _namespace, onContext, queryChars = 4000, ...contextOptions } = options;
  const layers = { session: false as const, ...contextOptions.layers };
  return {
    specificationVersion: 'v4',
    transformParams: async ({ params }) => {
      const query = latestTurns(params.prompt, queryChars);
      const built = await memory.buildContext({ ...contextOptions, layers, namespace, ...(query.length ? { query } : {}) });
      if (built.report.included.length === 0) return params;
      onContext?.(built);
      return { ...params, prompt: withContext(params.prompt, built.text) };
    },
  };
}

/** The conversation's text turns, newest last, as many as fit in `maxChars` (the newest one cut if it alone is longer). */
function latestTurns(prompt: PromptMessage[], maxChars: number): ConversationTurn[] {
  const turns: ConversationTurn[] = [];
  let room = maxChars;
  for (let i = prompt.length - 1; i >= 0 && room > 0; i--) {
    const message = prompt[i]!;
    if (message.role !== 'user' && message.role !== 'assistant') continue;
    const text = message.content
      .flatMap((part) => (part.type === 'text' ? [part.text] : []))
      .join('\n')
      .trim();
    if (!text) continue;
    const content = text.length > room ? text.slice(text.length - room) : text;
    turns.unshift({ role: message.role, content });
    room -= content.length;
  }
  return turns;
}

/** The prompt with the context as a system message after the leading system messages (the caller's instructions stay first). */
function withContext(prompt: PromptMessage[], text: string): PromptMessage[] {
  let at = 0;
  while (at < prompt.length && prompt[at]!.role === 'system') at++;
  return [...prompt.slice(0, at), { role: 'system', content: text }, ...prompt.slice(at)];
}
