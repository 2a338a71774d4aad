import { MockLanguageModelV4 } from 'ai/test';

type CallOptions = MockLanguageModelV4['doGenerateCalls'][number];
type Prompt = CallOptions['prompt'];

/** What one step of the scripted model answers: a tool call or a text. */
export type Reply = { tool: string; input: unknown } | { text: string };

const usage = (inputTokens: number) => ({
  inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
});

/**
 * The AI SDK's MockLanguageModelV4 driven by a function of the prompt: every call is one
 * step of a loop, recorded in `doGenerateCalls` (that is how LLM calls are counted).
 */
export function scriptedModel(script: (prompt: Prompt, step: number) => Reply): MockLanguageModelV4 {
  let step = 0;
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      const reply = script(options.prompt, step++);
      const content =
        'tool' in reply
          ? [{ type: 'tool-call' as const, toolCallId: `call-${step}`, toolName: reply.tool, input: JSON.stringify(reply.input) }]
          : [{ type: 'text' as const, text: reply.text }];
      return {
        content,
        finishReason: { unified: 'tool' in reply ? ('tool-calls' as const) : ('stop' as const), raw: undefined },
        usage: usage(JSON.stringify(options.prompt).length),
        warnings: [],
      };
    },
  });
}

/** Every text of a prompt (system texts, user and assistant text parts, tool results as JSON). */
export function promptText(prompt: Prompt): string {
  return prompt
    .map((message) => (typeof message.content === 'string' ? message.content : message.content.map((part) => ('text' in part ? part.text : JSON.stringify(part))).join('\n')))
    .join('\n');
}

/** The outputs of the tool results in a prompt, newest last. */
export function toolOutputs(prompt: Prompt): Array<{ toolName: string; output: unknown }> {
  const outputs: Array<{ toolName: string; output: unknown }> = [];
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-result') outputs.push({ toolName: part.toolName, output: part.output });
  }
  return outputs;
}
