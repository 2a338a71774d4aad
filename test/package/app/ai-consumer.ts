// A strict TypeScript consumer of @zeromem/ai with the AI SDK, as its README installs them
// (type-checked with skipLibCheck off, never run): the SDK's own types must resolve too.
import { openMemory } from '@zeromem/core';
import { memoryContextMiddleware, memoryTools } from '@zeromem/ai';
import { generateText, stepCountIs, wrapLanguageModel, type LanguageModel } from 'ai';

export async function agent(model: Exclude<LanguageModel, string>): Promise<string> {
  const memory = await openMemory({ name: 'typed-agent' });
  const namespace = { userId: 'alice' };
  const wrapped = wrapLanguageModel({ model, middleware: memoryContextMiddleware({ memory, namespace, budget: 800 }) });
  const { text } = await generateText({ model: wrapped, tools: memoryTools({ memory, namespace }), stopWhen: stepCountIs(5), prompt: 'Am I allergic to anything?' });
  await memory.close();
  return text;
}
