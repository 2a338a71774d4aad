import net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { openMemory, type Memory } from '@zeromem/core';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryServer } from '../src/index.ts';
import { call, callError, tempHome } from './bin-client.ts';

let memory: Memory;
let client: Client;
const alice = { userId: 'alice', scope: 'desktop' };
const bob = { userId: 'bob' };

const home = tempHome();
afterAll(() => home.remove());

beforeEach(async () => {
  memory = await openMemory({ name: `mcp-${crypto.randomUUID()}`, directory: home.ZEROMEM_HOME });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMemoryServer({ memory, namespace: alice }).connect(serverSide);
  client = new Client({ name: 'zeromem-test', version: '1.0.0' });
  await client.connect(clientSide);
});
afterEach(async () => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  await client.close();
  await memory.close();
});

describe('the namespace comes from the server, never from the model', () => {
  it('a model that tries every way into another namespace reaches nothing there', async () => {
    const secret = await memory.remember({ namespace: bob, content: "Bob's door code is 4711" });
    await memory.remember({ namespace: { userId: 'alice' }, content: "Alice's own namespace, not the server's" });
    const attempts: Array<[string, Record<string, unknown>]> = [
      ['get_memory', { id: secret.id }],
      ['update_memory', { id: secret.id, content: 'hacked' }],
      ['search_memories', { query: 'door code', namespace: bob }],
      ['search_memories', { query: 'door code', userId: 'bob' }],
      ['list_memories', { scope: 'other' }],
      ['add_memory', { content: 'planted', agentId: 'x' }],
      ['build_context', { query: 'door code', namespace: bob }],
    ];
    for (const [tool, args] of attempts) await callError(client, tool, args);
    expect(await call(client, 'delete_memory', { id: secret.id })).toEqual({ id: secret.id, deleted: false });
    expect((await call<{ results: unknown[] }>(client, 'search_memories', { query: "Bob's door code 4711 namespace" })).results).toEqual([]);
    expect(await call(client, 'delete_all_memories')).toEqual({ deleted: 0 });
    await expect(client.readResource({ uri: `memory://${secret.id}` })).rejects.toThrow(/No memory/);
    expect(await memory.get(bob, secret.id)).toMatchObject({ content: "Bob's door code is 4711", version: 1 });
    expect(await memory.count(bob)).toBe(1);
    expect(await memory.count({ userId: 'alice' })).toBe(1);
    expect(await memory.count(alice)).toBe(0);
  });
});

describe('zero tokens spent by memory itself', () => {
  it('every tool runs without an LLM or network call; only build_context output costs tokens, as reported', async () => {
    const network = vi.fn(() => {
      throw new Error('network access');
    });
    vi.stubGlobal('fetch', network);
    vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(network as never);
    const { id } = await call<{ id: string }>(client, 'add_memory', { content: 'Alice is allergic to peanuts' });
    await call(client, 'add_memory', { content: 'Alice prefers window seats' });
    await call(client, 'search_memories', { query: 'peanuts' });
    await call(client, 'get_memory', { id });
    await call(client, 'list_memories');
    await call(client, 'update_memory', { id, importance: 0.9 });
    const context = await call<{ text: string; report: { tokens: number; tokenizer: string; fullHistoryTokens: number } }>(client, 'build_context', { query: 'allergies peanuts', budget: 300 });
    await call(client, 'delete_memory', { id });
    await call(client, 'delete_all_memories');
    expect(network).not.toHaveBeenCalled();
    const tokenizer = await memory.tokenizer();
    expect(tokenizer.count(context.text)).toBeLessThanOrEqual(context.report.tokens); // the report counts what is injected
    const definitions = tokenizer.count(JSON.stringify((await client.listTools()).tools));
    console.log(
      `[zero-token] MCP: LLM calls by memory 0, network calls ${network.mock.calls.length}; build_context injected ${context.report.tokens} tokens (${context.report.tokenizer}) ` +
        `of ${context.report.fullHistoryTokens} in the namespace; tool definitions a client lists: ${definitions} tokens`,
    );
  });
});

describe('build_context', () => {
  it('without a query holds the latest memories, newest first', async () => {
    await call(client, 'add_memory', { content: 'Alice is allergic to peanuts' });
    await call(client, 'add_memory', { content: 'Alice prefers window seats' });
    const context = await call<{ text: string; report: { tokens: number; included: Array<{ layer: string; score: number | null }> } }>(client, 'build_context', {});
    expect(context.text).toContain('Alice prefers window seats');
    expect(context.text.indexOf('Alice prefers window seats')).toBeLessThan(context.text.indexOf('Alice is allergic to peanuts'));
    expect(context.report.included).toEqual([expect.objectContaining({ layer: 'long_term', score: null }), expect.objectContaining({ layer: 'long_term', score: null })]);
    expect(context.report.tokens).toBeGreaterThan(0);
  });
});

describe('facts that change', () => {
  it('set_fact closes the key\'s earlier fact; get_profile, search and build_context give only the current one', async () => {
    const phone = await call<{ id: string; closed: string[] }>(client, 'set_fact', { key: 'contact.channel', content: 'Alice prefers phone calls.', validFrom: '2026-03-03' });
    expect(phone.closed).toEqual([]);
    const email = await call<{ id: string; closed: string[]; memory: { key: string; validFrom: string } }>(client, 'set_fact', { key: 'contact.channel', content: 'Alice prefers e-mail, no more calls.', validFrom: '2026-03-04' });
    expect(email).toMatchObject({ closed: [phone.id], memory: { key: 'contact.channel', validFrom: '2026-03-04T00:00:00.000Z' } });
    await call(client, 'set_fact', { key: 'home.city', content: 'Alice lives in Porto.' });
    const profile = await call<{ facts: Array<{ key: string; content: string }> }>(client, 'get_profile');
    expect(profile.facts.map(({ key, content }) => `${key}: ${content}`)).toEqual(['contact.channel: Alice prefers e-mail, no more calls.', 'home.city: Alice lives in Porto.']);
    const then = await call<{ facts: Array<{ key: string; content: string }> }>(client, 'get_profile', { asOf: '2026-03-03T12:00:00Z' });
    expect(then.facts.map(({ content }) => content)).toEqual(['Alice prefers phone calls.']);
    const found = await call<{ results: Array<{ content: string }> }>(client, 'search_memories', { query: 'phone calls or e-mail' });
    expect(found.results.map((hit) => hit.content)).not.toContain('Alice prefers phone calls.');
    const context = await call<{ text: string }>(client, 'build_context', { query: 'how do we contact Alice' });
    expect(context.text).toContain('contact.channel: Alice prefers e-mail, no more calls. (since 2026-03-04)');
    expect(context.text).not.toContain('phone calls.');
  });

  it('a bad key or time is a tool error that names the field, and nothing is written', async () => {
    for (const [args, field] of [
      [{ key: 'Contact Channel', content: 'x' }, /key/],
      [{ key: 'contact..channel', content: 'x' }, /key/],
      [{ key: 'a'.repeat(129), content: 'x' }, /key/],
      [{ key: 'contact.channel', content: '' }, /content/],
      [{ key: 'contact.channel', content: 'x', validFrom: 'yesterday-ish' }, /validFrom/],
      [{ key: 'contact.channel', content: 'x', namespace: bob }, /namespace/],
    ] as const) {
      expect(await callError(client, 'set_fact', args)).toMatch(field);
    }
    expect(await callError(client, 'get_profile', { asOf: 'not a time' })).toMatch(/asOf/);
    expect(await memory.count(alice)).toBe(0);
  });
});
