import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import 'fake-indexeddb/auto';
import { afterAll, expect, it, vi } from 'vitest';
import { startLlmServer, type ChatMessage } from './llm-server.ts';

const here = dirname(fileURLToPath(import.meta.url));
const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');
const outDir = join(here, '.generated');
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

/** The last user message, and whether a system message (memory's context) mentions peanuts. */
function answer(messages: ChatMessage[]) {
  const last = messages.at(-1)!;
  if (last.role === 'tool') return { text: 'Noted.' };
  if (String(last.content).startsWith('Remember that ')) return { tool: 'add_memory', input: { content: 'The user is allergic to peanuts' } };
  const knows = messages.some((m) => m.role === 'system' && String(m.content).includes('allergic to peanuts'));
  return { text: knows ? 'Better not: satay sauce is made with peanuts, and you are allergic to them.' : 'Sure!' };
}

it('runs the quick start of the README against an OpenAI-compatible server', async () => {
  // Marked `ts llm-server`: the docs test leaves it to this test, which provides the server.
  const [quickStart] = [...readme.matchAll(/^```ts llm-server\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  expect(quickStart).toBeDefined();
  const llm = await startLlmServer(answer);
  vi.stubEnv('LLM_URL', llm.url);
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  try {
    mkdirSync(outDir, { recursive: true });
    const file = join(outDir, 'quick-start.ts');
    writeFileSync(file, `${quickStart}\nexport {};\n`);
    await import(/* @vite-ignore */ file);
    expect(log).toHaveBeenCalledWith('Better not: satay sauce is made with peanuts, and you are allergic to them.');
    expect(llm.requests).toHaveLength(3); // the tool call, its follow-up, the answer: no call of memory's own
    expect(llm.requests[0]!.tools.map((t) => (t as { function: { name: string } }).function.name)).toContain('add_memory');
  } finally {
    log.mockRestore();
    vi.unstubAllEnvs();
    await llm.close();
  }
});
