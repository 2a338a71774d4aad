import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, callError, stdioClient, tempHome } from './bin-client.ts';

type View = { id: string; content: string; version: number; tags: string[] };

let client: Client;
let close: () => Promise<void>;
const home = tempHome();

beforeAll(async () => {
  ({ client, close } = await stdioClient(['--user', 'alice', '--scope', 'tests'], { ZEROMEM_HOME: home.ZEROMEM_HOME }));
}, 60_000);
afterAll(async () => {
  await close?.();
  home.remove();
});

describe('zeromem-mcp over stdio, with the SDK client', () => {
  it('lists the ten tools with schemas and the memory server annotations', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(['add_memory', 'build_context', 'delete_all_memories', 'delete_memory', 'get_memory', 'get_profile', 'list_memories', 'search_memories', 'set_fact', 'update_memory']);
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toBeDefined();
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      expect(JSON.stringify(tool.inputSchema), tool.name).not.toMatch(/namespace|userId/);
      expect(tool.annotations?.openWorldHint, tool.name).toBe(false);
    }
    for (const name of ['search_memories', 'get_memory', 'list_memories', 'build_context', 'get_profile']) expect(byName[name]!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    for (const name of ['update_memory', 'delete_memory', 'delete_all_memories']) expect(byName[name]!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    for (const name of ['add_memory', 'set_fact']) expect(byName[name]!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
  });

  it('adds, searches, reads, lists, updates, builds a context and deletes, with structuredContent', async () => {
    const added = await call<{ id: string; deduplicated: boolean; memory: View }>(client, 'add_memory', { content: 'Alice is allergic to peanuts', tags: ['health'] });
    expect(added).toMatchObject({ deduplicated: false, memory: { content: 'Alice is allergic to peanuts', tags: ['health'], version: 1 } });
    expect((await call<{ deduplicated: boolean }>(client, 'add_memory', { content: 'Alice is allergic to peanuts' })).deduplicated).toBe(true);
    await call(client, 'add_memory', { content: 'Alice prefers window seats' });

    const found = await call<{ results: Array<View & { score: number }> }>(client, 'search_memories', { query: 'peanuts allergy' });
    expect(found.results[0]).toMatchObject({ id: added.id, content: 'Alice is allergic to peanuts' });
    expect(found.results[0]!.score).toBeGreaterThan(0);
    expect(await call(client, 'get_memory', { id: added.id })).toMatchObject({ memory: { id: added.id } });
    const listed = await call<{ memories: View[]; nextCursor: string | null }>(client, 'list_memories', { limit: 1 });
    expect(listed.memories).toHaveLength(1);
    expect(listed.nextCursor).not.toBeNull();
    expect(await call(client, 'update_memory', { id: added.id, content: 'Alice is allergic to peanuts and cashews' })).toMatchObject({ memory: { version: 2 } });

    const context = await call<{ text: string; report: { tokens: number; budget: number; included: unknown[] } }>(client, 'build_context', { query: 'what is Alice allergic to', budget: 200 });
    expect(context.text).toContain('peanuts and cashews');
    expect(context.report.tokens).toBeGreaterThan(0);
    expect(context.report.tokens).toBeLessThanOrEqual(200);

    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`memory://${added.id}`);
    const read = await client.readResource({ uri: `memory://${added.id}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: added.id, version: 2 });

    expect(await call(client, 'delete_memory', { id: added.id })).toEqual({ id: added.id, deleted: true });
    await callError(client, 'get_memory', { id: added.id });
    expect(await call(client, 'delete_all_memories')).toEqual({ deleted: 1 });
    expect((await call<{ memories: View[] }>(client, 'list_memories')).memories).toEqual([]);
  });

  it('answers bad arguments with MCP errors that say what to fix, and writes nothing', async () => {
    const bad: Array<[string, Record<string, unknown>, RegExp]> = [
      ['add_memory', {}, /content/],
      ['add_memory', { content: '' }, /content/],
      ['add_memory', { content: 'x', importance: 7 }, /importance/],
      ['add_memory', { content: 'x', namespace: { userId: 'bob' } }, /namespace/],
      ['add_memory', { content: 'x', metadata: { big: 'x'.repeat(9000) } }, /metadata/],
      ['add_memory', { content: 'x'.repeat(40_000) }, /content/],
      ['update_memory', { id: 'nope', content: 'y' }, /NOT_FOUND/],
      ['update_memory', { content: 'y' }, /id/],
      ['search_memories', { query: 'x', limit: 0 }, /limit/],
      ['search_memories', { query: 'x', userId: 'bob' }, /userId/],
      ['get_memory', { id: 'nope' }, /NOT_FOUND.*search_memories/],
      ['delete_memory', {}, /id/],
      ['build_context', { budget: -1 }, /budget/],
      ['list_memories', { cursor: 'garbage' }, /cursor/],
    ];
    for (const [tool, args, says] of bad) expect(await callError(client, tool, args), `${tool} ${JSON.stringify(args).slice(0, 60)}`).toMatch(says);
    expect((await call<{ memories: View[] }>(client, 'list_memories')).memories).toEqual([]);
  });

  it('50 concurrent tool calls lose and corrupt nothing', async () => {
    const contents = Array.from({ length: 40 }, (_, i) => `Concurrent fact number ${i} about topic ${i % 7}`);
    const calls = [
      ...contents.map((content) => call<{ id: string }>(client, 'add_memory', { content, tags: [`t${contents.indexOf(content) % 5}`] })),
      ...Array.from({ length: 10 }, (_, i) => call(client, 'search_memories', { query: `topic ${i % 7}` })),
    ];
    const results = await Promise.all(calls);
    const ids = results.slice(0, 40).map((r) => (r as { id: string }).id);
    expect(new Set(ids).size).toBe(40);

    const updates = await Promise.all(ids.map((id, i) => call<{ memory: View }>(client, 'update_memory', { id, content: `${contents[i]} (checked)` })));
    expect(updates.every((u) => u.memory.version === 2)).toBe(true);
    const stored: View[] = [];
    let cursor: string | null = null;
    do {
      const page: { memories: View[]; nextCursor: string | null } = await call(client, 'list_memories', { limit: 100, ...(cursor ? { cursor } : {}) });
      stored.push(...page.memories);
      cursor = page.nextCursor;
    } while (cursor);
    expect(stored.map((m) => m.content).sort()).toEqual(contents.map((c) => `${c} (checked)`).sort());
    expect(stored.every((m, _i) => m.version === 2 && m.tags.length === 1)).toBe(true);
    await call(client, 'delete_all_memories');
  }, 60_000);
});
