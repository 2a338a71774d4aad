/**
 * The renderer's agents and inspector on the device store, the way Electron wires them:
 * the preload's API (createDesktopApi) over the main process's real IPC handlers over a
 * store on disk. Seeding, an agent's turn and a watched list work as on the page's own
 * memory, and a write another writer makes to the store shows up in the watched list.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ListPage } from '@zeromem/core';
import { DeviceStore } from '../../src/main/device-store.ts';
import { createIpcHandlers } from '../../src/main/ipc-handlers.ts';
import { LlmSettingsStore } from '../../src/main/llm-settings-store.ts';
import { createDesktopApi } from '../../src/preload/desktop-api.ts';
import { openAgentSession, runTurn } from '../../src/renderer/agent-turn.ts';
import { deviceMemory, type AppMemory } from '../../src/renderer/app-memory.ts';
import type { LlmClient } from '../../src/renderer/llm-client.ts';
import { agentById, seedStory, storySeed, userNamespace } from '../../src/renderer/story.ts';
import { testKeychain } from '../main/test-keychain.ts';

let dir: string;
let store: DeviceStore;
let memory: AppMemory;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'zeromem-device-memory-'));
  store = await DeviceStore.open(join(dir, 'home'));
  const handlers = createIpcHandlers({ store: new LlmSettingsStore(dir, testKeychain()), deviceStore: store });
  const ipc = {
    invoke: (channel: string, ...args: unknown[]) => handlers[channel]!({ frameUrl: 'app://zeromem/index.html', send: () => undefined }, args),
    on: () => undefined,
    removeListener: () => undefined,
  };
  memory = deviceMemory(createDesktopApi(ipc).memory, 20);
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const noLlm: LlmClient = {
  platform: 'electron',
  status: async () => ({ settings: null, hasApiKey: false, keyStorage: 'os-keychain' }),
  save: async () => {
    throw new Error('not in this test');
  },
  chat: async () => {
    throw new Error('not in this test');
  },
};

it('seeds the story and runs an agent turn through the preload’s verbs, into the device store', async () => {
  expect((await seedStory(memory)).written).toBe(storySeed().length);
  const agent = agentById('marketing');
  const turn = await runTurn({ memory, session: openAgentSession(memory, agent, 'conv-1'), agent, llm: noLlm, online: false, text: 'How do we reach the user by phone?\nREMEMBER: The user answers calls after 18:00.', seq: 1 });
  expect(turn.reply).toContain('- The user prefers e-mail; no phone calls any more.');
  expect(turn.tools.map((t) => t.ok)).toEqual([true]);
  const stored = (await store.memory.list(userNamespace(), { limit: 100 })).items.map((r) => r.content);
  expect(stored).toContain('The user answers calls after 18:00.');
  expect(stored).toContain('The user prefers e-mail; no phone calls any more.');
  expect(stored).not.toContain('The user prefers phone calls over e-mail.'); // replaced on day three, kept as history:
  // the inspector's profile and time line, through the preload's verbs.
  expect((await memory.profile(userNamespace())).map((entry) => [entry.key, entry.id])).toEqual([['contact.channel', 'channel-email']]);
  const versions = await memory.list(userNamespace(), { key: 'contact.channel', includeClosed: true, order: 'asc' });
  expect(versions.items.map((r) => [r.id, r.closedBy])).toEqual([['channel-phone', 'channel-email'], ['channel-email', null]]);
});

it('a watched list shows another writer’s memory, and stops when unwatched', async () => {
  const pages: ListPage[] = [];
  const stop = memory.watch({ userId: 'alice' }, { limit: 10 }, (page) => pages.push(page));
  await expect.poll(() => pages.length).toBe(1);
  expect(pages[0]!.items).toEqual([]);
  await store.memory.remember({ namespace: { userId: 'alice' }, content: 'Written by zeromem-mcp.' });
  await expect.poll(() => pages.at(-1)!.items.map((r) => r.content)).toEqual(['Written by zeromem-mcp.']);
  stop();
  const seen = pages.length;
  await store.memory.remember({ namespace: { userId: 'alice' }, content: 'After the watch stopped.' });
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(pages.length).toBe(seen);
});
