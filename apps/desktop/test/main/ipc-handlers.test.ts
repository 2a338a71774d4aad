/**
 * Every IPC channel rejects bad input with a coded error (and does nothing), refuses
 * callers that are not the app's page, and does its job on good input: settings are
 * stored with the key only in the (test) keychain, and a chat streams from a real HTTP
 * server speaking OpenAI's streaming format.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIpcHandlers, type IpcCaller } from '../../src/main/ipc-handlers.ts';
import { LlmSettingsStore } from '../../src/main/llm-settings-store.ts';
import { IPC, IPC_EVENTS, type ChatDelta, type IpcChannel } from '../../src/shared/ipc-contract.ts';
import { testKeychain } from './test-keychain.ts';

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-ipc-'));
  dirs.push(dir);
  return dir;
}

function caller(sent: ChatDelta[] = [], frameUrl: string | undefined = 'app://zeromem/index.html'): IpcCaller {
  return { frameUrl, send: (channel, payload) => void (channel === IPC_EVENTS.chatDelta && sent.push(payload)) };
}

let server: ReturnType<typeof createServer>;
let baseUrl = '';
const seen: Array<{ auth: string | undefined; body: { model: string; messages: unknown[] } }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ auth: req.headers.authorization, body: JSON.parse(body) });
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      for (const piece of ['Hello', ', ', 'world']) res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: piece } }] })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const validChat = { requestId: 'r1', messages: [{ role: 'user', content: 'hi' }] };

/** Bad arguments per channel: each must be INVALID_INPUT. */
const BAD: Record<IpcChannel, unknown[][]> = {
  [IPC.getLlmSettings]: [[1], [{}], ['x', 'y']],
  [IPC.saveLlmSettings]: [
    [],
    [null],
    ['http://x'],
    [{ baseUrl: 'ftp://host/v1', model: 'm' }],
    [{ baseUrl: 'javascript:alert(1)', model: 'm' }],
    [{ baseUrl: 'http://user:pw@host/v1', model: 'm' }],
    [{ baseUrl: 'http://127.0.0.1:11434/v1', model: '' }],
    [{ baseUrl: 'http://127.0.0.1:11434/v1', model: 'm', apiKey: 42 }],
    [{ baseUrl: 'http://127.0.0.1:11434/v1', model: 'm', extra: true }],
    [{ baseUrl: 'http://127.0.0.1:11434/v1', model: 'm' }, 'second argument'],
  ],
  [IPC.chat]: [
    [],
    [undefined],
    [{ ...validChat, requestId: '../x' }],
    [{ ...validChat, requestId: '' }],
    [{ ...validChat, messages: [] }],
    [{ ...validChat, messages: [{ role: 'root', content: 'x' }] }],
    [{ ...validChat, messages: [{ role: 'user', content: 7 }] }],
    [{ ...validChat, temperature: 9 }],
    [{ ...validChat, url: 'http://evil/' }],
  ],
  [IPC.cancelChat]: [[], [7], ['has space'], ['x'.repeat(65)], [{ requestId: 'r1' }]],
};

describe('IPC handlers', () => {
  for (const [channel, cases] of Object.entries(BAD) as Array<[IpcChannel, unknown[][]]>) {
    it(`${channel} rejects bad input with INVALID_INPUT and writes nothing`, async () => {
      const dir = freshDir();
      const handlers = createIpcHandlers({ store: new LlmSettingsStore(dir, testKeychain()) });
      for (const args of cases) {
        const result = await handlers[channel](caller(), args);
        expect(result, JSON.stringify(args)).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
        if (!result.ok) expect(result.error.message.length).toBeGreaterThan(10);
      }
      expect(readdirSync(dir)).toEqual([]);
    });

    it(`${channel} refuses a caller that is not the app's page`, async () => {
      const handlers = createIpcHandlers({ store: new LlmSettingsStore(freshDir(), testKeychain()) });
      for (const frameUrl of ['https://evil.example/', 'file:///tmp/x.html', undefined]) {
        const result = await handlers[channel]({ frameUrl, send: () => undefined }, channel === IPC.getLlmSettings ? [] : [validChat]);
        expect(result).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
      }
    });
  }

  it('saves settings, keeps the key encrypted in the keychain file and never returns it', async () => {
    const dir = freshDir();
    const handlers = createIpcHandlers({ store: new LlmSettingsStore(dir, testKeychain()) });
    const saved = await handlers[IPC.saveLlmSettings](caller(), [{ baseUrl, model: 'tiny', apiKey: 'sk-secret-123' }]);
    expect(saved).toEqual({ ok: true, value: { settings: { baseUrl, model: 'tiny' }, hasApiKey: true, keyStorage: 'os-keychain' } });
    for (const file of readdirSync(dir)) expect(readFileSync(join(dir, file)).includes('sk-secret-123'), file).toBe(false);
    expect(JSON.stringify(await handlers[IPC.getLlmSettings](caller(), []))).not.toContain('sk-secret');
    // null deletes the key; absent keeps it.
    await handlers[IPC.saveLlmSettings](caller(), [{ baseUrl, model: 'tiny' }]);
    expect(await handlers[IPC.getLlmSettings](caller(), [])).toMatchObject({ ok: true, value: { hasApiKey: true } });
    await handlers[IPC.saveLlmSettings](caller(), [{ baseUrl, model: 'tiny', apiKey: null }]);
    expect(await handlers[IPC.getLlmSettings](caller(), [])).toMatchObject({ ok: true, value: { hasApiKey: false } });
  });

  it('refuses to store a key without a keychain (KEYCHAIN_UNAVAILABLE) and writes nothing', async () => {
    const dir = freshDir();
    const handlers = createIpcHandlers({ store: new LlmSettingsStore(dir, testKeychain(false)) });
    const result = await handlers[IPC.saveLlmSettings](caller(), [{ baseUrl, model: 'tiny', apiKey: 'sk-secret' }]);
    expect(result).toMatchObject({ ok: false, error: { code: 'KEYCHAIN_UNAVAILABLE' } });
    expect(existsSync(join(dir, 'llm-settings.json'))).toBe(false);
  });

  it('a chat without settings is LLM_NOT_CONFIGURED; with them it streams deltas and sends the key', async () => {
    const handlers = createIpcHandlers({ store: new LlmSettingsStore(freshDir(), testKeychain()) });
    expect(await handlers[IPC.chat](caller(), [validChat])).toMatchObject({ ok: false, error: { code: 'LLM_NOT_CONFIGURED' } });
    await handlers[IPC.saveLlmSettings](caller(), [{ baseUrl, model: 'tiny', apiKey: 'sk-secret-123' }]);
    const deltas: ChatDelta[] = [];
    const result = await handlers[IPC.chat](caller(deltas), [validChat]);
    expect(result).toEqual({ ok: true, value: 'Hello, world' });
    expect(deltas).toEqual([{ requestId: 'r1', delta: 'Hello' }, { requestId: 'r1', delta: ', ' }, { requestId: 'r1', delta: 'world' }]);
    expect(seen.at(-1)).toMatchObject({ auth: 'Bearer sk-secret-123', body: { model: 'tiny', messages: validChat.messages } });
    expect(await handlers[IPC.cancelChat](caller(), ['r1'])).toEqual({ ok: true, value: false }); // finished already
  });

  it('an unreachable endpoint is LLM_UNREACHABLE', async () => {
    const handlers = createIpcHandlers({ store: new LlmSettingsStore(freshDir(), testKeychain()) });
    await handlers[IPC.saveLlmSettings](caller(), [{ baseUrl: 'http://127.0.0.1:1/v1', model: 'tiny' }]);
    expect(await handlers[IPC.chat](caller(), [validChat])).toMatchObject({ ok: false, error: { code: 'LLM_UNREACHABLE' } });
  });
});
