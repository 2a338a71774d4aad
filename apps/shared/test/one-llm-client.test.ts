/**
 * The example apps share one LLM client and one settings schema: the extension's stored
 * settings follow the same rules as the desktop app's form (a URL with user:password is
 * refused in both), and the extension's replies come from the shared streaming client,
 * whose failures carry the apps' stable error codes.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { LlmSettings as ExtensionLlmSettings } from '../../extension/src/settings.ts';
import { isAppError } from '../src/app-error.ts';
import { llmSettingsSchema, llmSettingsWithKeySchema } from '../src/llm-settings.ts';
import { streamChat } from '../src/openai-stream.ts';

describe('one LLM client for the apps', () => {
  it('the extension validates its endpoint with the shared schema', () => {
    expect(ExtensionLlmSettings).toBe(llmSettingsWithKeySchema);
    const withCredentials = { baseUrl: 'http://user:secret@127.0.0.1:11434/v1', model: 'llama3.2' };
    expect(ExtensionLlmSettings.safeParse(withCredentials).success).toBe(false);
    expect(llmSettingsSchema.safeParse(withCredentials).success).toBe(false);
    expect(ExtensionLlmSettings.safeParse({ baseUrl: 'http://127.0.0.1:11434/v1', model: ' ' }).success).toBe(false);
    expect(ExtensionLlmSettings.parse({ baseUrl: ' http://127.0.0.1:11434/v1 ', model: 'llama3.2', apiKey: 'k' })).toEqual({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2', apiKey: 'k' });
  });

  it('no app carries an SSE client of its own', () => {
    for (const file of ['../../extension/src/agent.ts', '../../desktop/src/main/ipc-handlers.ts', '../../desktop/src/renderer/llm-client.ts']) {
      const source = readFileSync(new URL(file, import.meta.url), 'utf8');
      expect(source, file).toContain("from '@zeromem/app-shared/openai-stream'");
      expect(source, file).not.toContain('eventsource-parser');
    }
  });

  it('a refused key is LLM_FAILED with the status, for every app', async () => {
    const server = createServer((_req, res) => res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"error":{"message":"bad key"}}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const settings = ExtensionLlmSettings.parse({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', apiKey: 'wrong' });
      const failure = await streamChat({ settings, apiKey: settings.apiKey, messages: [{ role: 'user', content: 'hi' }], onDelta: () => undefined }).catch((err: unknown) => err);
      expect(isAppError(failure, 'LLM_FAILED')).toBe(true);
      expect((failure as Error).message).toContain('HTTP 401');
    } finally {
      server.close();
    }
  });
});
