/**
 * The preload's API, driven through a real EventEmitter in place of ipcRenderer whose
 * `invoke` answers with the main process's real handlers: results and coded errors
 * arrive as the renderer sees them, and only the four channels are ever used.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createIpcHandlers } from '../../src/main/ipc-handlers.ts';
import { LlmSettingsStore } from '../../src/main/llm-settings-store.ts';
import { createDesktopApi, type IpcRendererLike } from '../../src/preload/desktop-api.ts';
import { isAppError } from '@zeromem/app-shared/app-error';
import { MEMORY_VERBS, memoryChannel, IPC, type IpcChannel } from '../../src/shared/ipc-contract.ts';
import { testKeychain } from './test-keychain.ts';

const dir = mkdtempSync(join(tmpdir(), 'zeromem-preload-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function bridge(): { api: ReturnType<typeof createDesktopApi>; channels: string[]; events: EventEmitter } {
  const handlers = createIpcHandlers({ store: new LlmSettingsStore(dir, testKeychain()) });
  const events = new EventEmitter();
  const channels: string[] = [];
  const ipc: IpcRendererLike = {
    invoke: async (channel, ...args) => {
      channels.push(channel);
      const handler = handlers[channel as IpcChannel];
      if (!handler) throw new Error(`No handler registered for '${channel}'`);
      return handler({ frameUrl: 'app://zeromem/index.html', send: (name, payload) => events.emit(name, {}, payload) }, args);
    },
    on: (channel, listener) => events.on(channel, listener),
    removeListener: (channel, listener) => events.removeListener(channel, listener),
  };
  return { api: createDesktopApi(ipc), channels, events };
}

describe('the preload API', () => {
  it('is frozen and has exactly the four LLM calls and the device store verbs', () => {
    const { api } = bridge();
    expect(Object.isFrozen(api)).toBe(true);
    expect(Object.keys(api).sort()).toEqual(['cancelChat', 'chat', 'getLlmSettings', 'memory', 'platform', 'saveLlmSettings']);
    expect(Object.isFrozen(api.memory)).toBe(true);
    expect(Object.keys(api.memory).sort()).toEqual([...MEMORY_VERBS].sort());
  });

  it('sends each device store verb on its own channel, and nothing else', async () => {
    const { api, channels } = bridge();
    await expect(api.memory.list({ userId: 'u' })).rejects.toThrow(); // this bridge's main process has no device store
    expect(channels).toEqual([memoryChannel('list')]);
  });

  it('rethrows main-process failures as AppErrors with their code', async () => {
    const { api, channels } = bridge();
    await expect(api.saveLlmSettings({ baseUrl: 'ftp://x', model: 'm' })).rejects.toSatisfy((err) => isAppError(err, 'INVALID_INPUT'));
    await expect(api.chat({ requestId: 'ok', messages: [{ role: 'user', content: 'x' }] }, () => undefined)).rejects.toSatisfy((err) => isAppError(err, 'LLM_NOT_CONFIGURED'));
    await expect(api.cancelChat('bad id!')).rejects.toSatisfy((err) => isAppError(err, 'INVALID_INPUT'));
    await expect(api.chat({ requestId: 'ok', messages: [] }, 'not a function' as never)).rejects.toSatisfy((err) => isAppError(err, 'INVALID_INPUT'));
    expect(new Set(channels)).toEqual(new Set([IPC.saveLlmSettings, IPC.chat, IPC.cancelChat]));
  });

  it('removes its delta listener after each chat', async () => {
    const { api, events } = bridge();
    await api.chat({ requestId: 'a', messages: [{ role: 'user', content: 'x' }] }, () => undefined).catch(() => undefined);
    expect(events.listenerCount('zeromem:llm:delta')).toBe(0);
    const status = await api.getLlmSettings();
    expect(status).toMatchObject({ settings: null, hasApiKey: false });
  });
});
