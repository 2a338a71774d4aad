/**
 * The "Claude's memory tool" examples of @zeromem/ai's and @zeromem/langchain's READMEs
 * (blocks marked ```ts anthropic-api), run as a reader runs them with a key, against a
 * stand-in for Anthropic's Messages API on loopback (`ANTHROPIC_BASE_URL`): Claude uses
 * each of the memory tool's six commands, every `// comment` line prints what it says,
 * and every command's answer went back to the model.
 */
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import 'fake-indexeddb/auto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { memorySession, serveMessagesApi, toolResults, toolUsesOf } from '../integrations/messages-api.ts';
import { runChecked } from './run-checked.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const outDir = join(root, 'test', 'docs', '.generated-claude-memory');
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

/** Each README, and the base URL its Anthropic client takes (the AI SDK's ends in /v1, the Anthropic SDK's does not). */
const readmes = [
  { name: 'ai', baseUrl: (origin: string) => `${origin}/v1` },
  { name: 'langchain', baseUrl: (origin: string) => origin },
];

describe("README: Claude's memory tool", () => {
  for (const { name, baseUrl } of readmes) {
    it(`packages/${name}/README.md runs the conversation and prints what it shows`, { timeout: 60_000 }, async () => {
      const readme = readFileSync(join(root, 'packages', name, 'README.md'), 'utf8');
      const blocks = [...readme.matchAll(/^```ts anthropic-api\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
      expect(blocks).toHaveLength(1);
      const api = await serveMessagesApi(memorySession);
      vi.stubEnv('ANTHROPIC_BASE_URL', baseUrl(api.url));
      vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-test-not-a-key');
      try {
        expect(await runChecked(blocks[0]!, join(outDir, `${name}.ts`))).toBeGreaterThanOrEqual(1);
        expect(api.requests).toHaveLength(memorySession.responses.length);
        const answered = api.requests.slice(1).map((request) => toolResults(request).map((block) => block.tool_use_id));
        expect(answered).toEqual(toolUsesOf(memorySession).map((use) => [use.id]));
      } finally {
        vi.unstubAllEnvs();
        await api.close();
      }
    });
  }
});
