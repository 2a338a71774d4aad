/**
 * The desktop app on the device store: the main process's memory verbs, called as the IPC
 * handlers they are, over a real store on disk; and a real `zeromem-mcp` process on the same
 * store (`$ZEROMEM_HOME/zeromem.sqlite`): what it remembered is what the app lists, and what
 * the app remembered is what it lists, both while the two run at once and when one starts
 * after the other quit (a restart finds everything on disk).
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry, ListPage, MemoryRecord, RememberResult } from '@zeromem/core';
import { call, stdioClient } from '../../../../packages/mcp/test/bin-client.ts';
import { DEVICE_STORE_NAME, DeviceStore } from '../../src/main/device-store.ts';
import { createIpcHandlers, type IpcCaller } from '../../src/main/ipc-handlers.ts';
import { LlmSettingsStore } from '../../src/main/llm-settings-store.ts';
import { memoryChannel, type IpcResult, type MemoryVerb } from '../../src/shared/ipc-contract.ts';
import { testKeychain } from './test-keychain.ts';

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-device-store-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const app: IpcCaller = { frameUrl: 'app://zeromem/index.html', send: () => undefined };
const open: DeviceStore[] = [];
afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
});

/** The app's side: the main process's handlers over the device store in `home`. */
async function desktopMain(home: string) {
  const store = await DeviceStore.open(home);
  open.push(store);
  const handlers = createIpcHandlers({ store: new LlmSettingsStore(freshDir(), testKeychain()), deviceStore: store });
  const invoke = <T>(verb: MemoryVerb, ...args: unknown[]) => handlers[memoryChannel(verb)]!(app, args) as Promise<IpcResult<T>>;
  const value = async <T>(verb: MemoryVerb, ...args: unknown[]) => {
    const result = await invoke<T>(verb, ...args);
    if (!result.ok) throw new Error(`${verb}: ${result.error.code} ${result.error.message}`);
    return result.value;
  };
  return { store, invoke, value, close: () => store.close().then(() => void open.splice(open.indexOf(store), 1)) };
}

describe('the device store in the main process', () => {
  it('opens $ZEROMEM_HOME/zeromem.sqlite by default, the MCP server’s store', async () => {
    const home = freshDir();
    const before = process.env.ZEROMEM_HOME;
    process.env.ZEROMEM_HOME = home;
    try {
      const store = await DeviceStore.open();
      open.push(store);
      expect(store.info).toEqual({ name: DEVICE_STORE_NAME, directory: home, file: join(home, 'zeromem.sqlite') });
    } finally {
      if (before === undefined) delete process.env.ZEROMEM_HOME;
      else process.env.ZEROMEM_HOME = before;
    }
  });

  it('answers its verbs, refuses bad arguments with INVALID_INPUT and writes nothing, keeps core’s codes', async () => {
    const main = await desktopMain(freshDir());
    const ns = { userId: 'alice' };
    const written = await main.value<RememberResult>('remember', { namespace: ns, content: 'Alice prefers tea.', tags: ['drink'] }, { actor: 'inspector' });
    expect((await main.value<ListPage>('list', ns, { limit: 10 })).items.map((r) => r.content)).toEqual(['Alice prefers tea.']);
    for (const bad of [[], [{ namespace: ns }], [{ namespace: ns, content: 'x', extra: 1 }], [{ namespace: { userId: 5 }, content: 'x' }], [{ namespace: ns, content: 'x' }, { actor: 'a' }, 'third']]) {
      const result = await main.invoke('remember', ...bad);
      expect(result.ok ? 'ok' : result.error.code, JSON.stringify(bad)).toBe('INVALID_INPUT');
    }
    expect(await main.store.memory.count(ns)).toBe(1);
    const missing = await main.invoke('update', ns, 'no-such-id', { content: 'y' });
    expect(missing.ok ? 'ok' : missing.error.code).toBe('NOT_FOUND');
    const hits = await main.value<{ hits: Array<{ id: string }> }>('recall', ns, 'what does alice drink? tea', { k: 3 });
    expect(hits.hits.map((h) => h.id)).toEqual([written.record.id]);
    expect(await main.value<boolean>('forget', ns, written.record.id, { actor: 'inspector' })).toBe(true);
    expect(await main.store.memory.count(ns)).toBe(0);
    // Another frame than the app's own page gets nothing.
    const foreign = await createIpcHandlers({ store: new LlmSettingsStore(freshDir(), testKeychain()), deviceStore: main.store })[memoryChannel('listNamespaces')]!({ frameUrl: 'https://evil.example/', send: () => undefined }, []);
    expect(foreign.ok).toBe(false);
  });

  it("pages the audit log with `after`, as the inspector's memory-tool file list reads it", async () => {
    const main = await desktopMain(freshDir());
    const ns = { userId: 'alice' };
    await main.value('remember', { namespace: ns, content: 'Alice prefers tea.' });
    await main.value('remember', { namespace: ns, content: 'Alice lives in Lyon.' });
    const all = await main.value<AuditEntry[]>('audit', ns, { limit: 10 });
    expect(all).toHaveLength(2);
    expect(await main.value<AuditEntry[]>('audit', ns, { after: all[0]!.seq, limit: 10 })).toEqual([all[1]]);
    const bad = await main.invoke('audit', ns, { after: -1 });
    expect(bad.ok ? 'ok' : bad.error.code).toBe('INVALID_INPUT');
  });

  it('keeps a conversation’s turns in order across calls, as the renderer’s agents use it', async () => {
    const main = await desktopMain(freshDir());
    const session = { namespace: { userId: 'u', agentId: 'a' }, id: 'conv-1', ttl: '7d', context: { budget: 400, system: 'Be brief.', layers: { long_term: { namespace: { userId: 'u' }, maxItems: 4 } } } };
    await main.value('remember', { namespace: { userId: 'u' }, content: 'The user lives in Lyon.' });
    await main.value<MemoryRecord>('addTurn', session, 'user', 'Where do I live?');
    await main.value<MemoryRecord>('addTurn', session, 'assistant', 'In Lyon.');
    const context = await main.value<{ messages: Array<{ role: string; content: string }> }>('context', session, 'Which city does the user live in, Lyon?');
    expect(context.messages[0]!.content).toContain('The user lives in Lyon.');
    expect(context.messages.slice(1)).toEqual([{ role: 'user', content: 'Where do I live?' }, { role: 'assistant', content: 'In Lyon.' }]);
  });

  it('fails every verb with the error the store failed to open with (a damaged file), and leaves the file as it was', async () => {
    const home = freshDir();
    writeFileSync(join(home, 'zeromem.sqlite'), '');
    const problem = await DeviceStore.open(home).then(
      () => expect.unreachable('a zero-byte store must not open'),
      (err: unknown) => err as Error & { code: string; details?: { storage?: { reason: string } } },
    );
    expect([problem.code, problem.details?.storage?.reason]).toEqual(['STORAGE_FAILED', 'corrupt']);
    expect(statSync(join(home, 'zeromem.sqlite')).size).toBe(0);
    const handlers = createIpcHandlers({ store: new LlmSettingsStore(freshDir(), testKeychain()), deviceStore: problem });
    for (const [verb, args] of [['info', []], ['list', [{ userId: 'alice' }]]] as const) {
      const result = await handlers[memoryChannel(verb)]!(app, [...args]);
      expect(result).toEqual({ ok: false, error: { code: 'STORAGE_FAILED', message: problem.message } });
    }
  });
});

describe('the device store shared with a real zeromem-mcp process', () => {
  it('both open at once: what the MCP server remembers, the open app lists at once, and what the app remembers, the running MCP server lists and finds', async () => {
    const home = freshDir();
    const alice = { userId: 'alice' };
    // The app is open on the store, then Claude Desktop starts its MCP server on it.
    const main = await desktopMain(home);
    const mcp = await stdioClient(['--user', 'alice'], { ZEROMEM_HOME: home });
    try {
      // The MCP server remembers: the app's handlers list it on their next call.
      const added = await call<{ id: string }>(mcp.client, 'add_memory', { content: 'Alice is allergic to peanuts.' });
      expect(await main.value<unknown[]>('listNamespaces')).toContainEqual(alice);
      expect((await main.value<ListPage>('list', alice, { limit: 10 })).items.map((r) => [r.id, r.content])).toEqual([[added.id, 'Alice is allergic to peanuts.']]);

      // The app remembers one and edits the MCP server's: the MCP server lists both on its next call.
      const remembered = await main.value<RememberResult>('remember', { namespace: alice, content: 'Alice flies to Lyon on Friday.' }, { actor: 'inspector' });
      await main.value('update', alice, added.id, { content: 'Alice is allergic to peanuts and cashews.' }, { actor: 'inspector' });
      const listed = await call<{ memories: Array<{ id: string; content: string }> }>(mcp.client, 'list_memories', { limit: 10 });
      expect(listed.memories.map((m) => [m.id, m.content]).sort()).toEqual(
        [[added.id, 'Alice is allergic to peanuts and cashews.'], [remembered.record.id, 'Alice flies to Lyon on Friday.']].sort(),
      );
      // ... and its search finds the app's memory (recall catches up from the audit log).
      const found = await call<{ results: Array<{ id: string }> }>(mcp.client, 'search_memories', { query: 'when does alice fly to lyon' });
      expect(found.results.map((r) => r.id)).toContain(remembered.record.id);

      // A forget on either side is gone for the other at once, and stays gone.
      expect(await call(mcp.client, 'delete_memory', { id: remembered.record.id })).toEqual({ id: remembered.record.id, deleted: true });
      expect((await main.value<ListPage>('list', alice, { limit: 10 })).items.map((r) => r.id)).toEqual([added.id]);
      expect(await main.value<unknown>('get', alice, remembered.record.id)).toBeNull();
      expect(await main.value<boolean>('forget', alice, added.id, { actor: 'inspector' })).toBe(true);
      expect((await call<{ memories: unknown[] }>(mcp.client, 'list_memories', { limit: 10 })).memories).toEqual([]);
      expect((await call<{ results: unknown[] }>(mcp.client, 'search_memories', { query: 'alice peanuts lyon' })).results).toEqual([]);

      // Both stayed open throughout: each still answers, and the MCP server never exited.
      expect(await main.store.memory.count(alice)).toBe(0);
      await call(mcp.client, 'add_memory', { content: 'Alice reads at night.' });
      expect((await main.value<ListPage>('list', alice, { limit: 10 })).items.map((r) => r.content)).toEqual(['Alice reads at night.']);
      expect(mcp.stderr()).not.toMatch(/STORAGE_FAILED|locked/);
    } finally {
      await mcp.close();
      await mcp.exited();
    }
  }, 120_000);

  it('what the MCP server remembered, the app lists; what the app remembered, the MCP server lists', async () => {
    const home = freshDir();
    const env = { ZEROMEM_HOME: home };
    // 1. Claude Desktop's MCP server remembers, then stops.
    const mcp = await stdioClient(['--user', 'alice'], env);
    const added = await call<{ id: string }>(mcp.client, 'add_memory', { content: 'Alice is allergic to peanuts.' });
    await mcp.close();
    await mcp.exited();

    // 2. The desktop app's main process opens the same store: the inspector lists it.
    const main = await desktopMain(home);
    expect(await main.value<unknown[]>('listNamespaces')).toContainEqual({ userId: 'alice' });
    const page = await main.value<ListPage>('list', { userId: 'alice' }, { limit: 10 });
    expect(page.items.map((r) => [r.id, r.content])).toEqual([[added.id, 'Alice is allergic to peanuts.']]);
    // The app remembers one and edits the MCP server's, then quits.
    await main.value('remember', { namespace: { userId: 'alice' }, content: 'Alice flies to Lyon on Friday.' }, { actor: 'inspector' });
    await main.value('update', { userId: 'alice' }, added.id, { content: 'Alice is allergic to peanuts and cashews.' }, { actor: 'inspector' });
    await main.close();

    // 3. The MCP server, started again, has both.
    const again = await stdioClient(['--user', 'alice'], env);
    try {
      const listed = await call<{ memories: Array<{ id: string; content: string }> }>(again.client, 'list_memories', { limit: 10 });
      expect(listed.memories.map((m) => m.content).sort()).toEqual(['Alice flies to Lyon on Friday.', 'Alice is allergic to peanuts and cashews.']);
      const found = await call<{ memories?: Array<{ content: string }>; results?: Array<{ content: string }> }>(again.client, 'search_memories', { query: 'when does alice fly to lyon' });
      expect(JSON.stringify(found)).toContain('Alice flies to Lyon on Friday.');
    } finally {
      await again.close();
      await again.exited();
    }
  }, 120_000);
});
