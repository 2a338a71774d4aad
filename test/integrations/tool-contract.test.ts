/**
 * The three adapters of zeromem's tool catalog (`@zeromem/tools`) give a model the same
 * contract: the AI SDK tools of `@zeromem/ai`, the MCP server of `@zeromem/mcp` as a client
 * lists it, and the LangChain tools of `@zeromem/langchain` have the same names,
 * descriptions, input schemas (as JSON Schema), forgetting marks and answers.
 */
import 'fake-indexeddb/auto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { memoryTools as aiTools } from '@zeromem/ai';
import { openMemory, type Memory } from '@zeromem/core';
import { memoryTools as langchainTools } from '@zeromem/langchain';
import { createMemoryServer } from '@zeromem/mcp';
import { MEMORY_TOOLS, type MemoryTool } from '@zeromem/tools';
import { asSchema, type Tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

interface Contract {
  name: string;
  description: string;
  input: unknown;
  forgets: boolean;
}

const alice = { userId: 'alice' };
let memory: Memory;
let client: Client;

/** A JSON Schema without the draft marker each converter adds its own way. */
function plain(schema: unknown): unknown {
  const { $schema: _draft, ...rest } = schema as Record<string, unknown>;
  return rest;
}

const catalog: Contract[] = (Object.values(MEMORY_TOOLS) as MemoryTool[]).map((tool) => ({ name: tool.name, description: tool.description, input: plain(z.toJSONSchema(tool.inputSchema)), forgets: tool.forgets }));

beforeAll(async () => {
  memory = await openMemory({ name: `tool-contract-${crypto.randomUUID()}` });
  await memory.remember({ namespace: alice, content: 'Alice is allergic to peanuts', tags: ['health'] });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMemoryServer({ memory, namespace: alice }).connect(serverSide);
  client = new Client({ name: 'tool-contract', version: '1.0.0' });
  await client.connect(clientSide);
});
afterAll(async () => {
  await client.close();
  await memory.close();
});

describe('one tool catalog, three adapters', () => {
  it('the catalog holds the ten tools with one set of limits', () => {
    expect(catalog.map((tool) => tool.name)).toEqual(['add_memory', 'search_memories', 'get_memory', 'list_memories', 'update_memory', 'delete_memory', 'delete_all_memories', 'build_context', 'set_fact', 'get_profile']);
    const search = catalog.find((tool) => tool.name === 'search_memories')!.input as { properties: Record<string, { maximum?: number; maxLength?: number }> };
    expect(search.properties.limit!.maximum).toBe(100);
    expect(search.properties.query!.maxLength).toBe(32_768);
  });

  it('@zeromem/ai renders every tool as the catalog says', async () => {
    const tools = aiTools({ memory, namespace: alice });
    const rendered = await Promise.all(
      (Object.entries(tools) as Array<[string, Tool]>).map(async ([name, tool]) => ({
        name,
        description: tool.description!,
        input: plain(await asSchema(tool.inputSchema).jsonSchema),
        forgets: tool.needsApproval === true,
      })),
    );
    expect(rendered).toEqual(catalog);
  });

  it('@zeromem/mcp lists every tool as the catalog says, with its annotations', async () => {
    const { tools } = await client.listTools();
    // MCP has no approval of its own: clients ask before a destructive tool, as the annotations say.
    expect(tools.map((tool) => ({ name: tool.name, description: tool.description, input: plain(tool.inputSchema), annotations: tool.annotations }))).toEqual(
      catalog.map(({ forgets: _forgets, ...tool }) => ({ ...tool, annotations: (MEMORY_TOOLS as Record<string, MemoryTool>)[tool.name]!.annotations })),
    );
  });

  it('@zeromem/langchain renders every tool as the catalog says', () => {
    const tools = langchainTools({ memory, namespace: alice });
    expect(tools.map((tool) => ({ name: tool.name, description: tool.description, input: plain(toJsonSchema(tool.schema)), forgets: (tool.metadata as { forgets: boolean }).forgets }))).toEqual(catalog);
  });

  it('the same call answers the same in all three, and the same bad call fails in all three', async () => {
    const input = { query: 'what is alice allergic to', limit: 3 };
    const viaAi = await aiTools({ memory, namespace: alice }).search_memories.execute!(input, { toolCallId: 'c1', messages: [], context: undefined } as never);
    const viaMcp = (await client.callTool({ name: 'search_memories', arguments: input })).structuredContent;
    const search = langchainTools({ memory, namespace: alice }).find((tool) => tool.name === 'search_memories')!;
    const viaLangchain = JSON.parse((await search.invoke(input)) as string) as unknown;
    // Each recall warms its hits (heat), so the scores differ call to call; the rest is the same.
    const unscored = (output: unknown) => (output as { results: Array<{ score: number }> }).results.map(({ score, ...hit }) => ({ ...hit, scored: score > 0 }));
    expect(unscored(viaAi)).toEqual([expect.objectContaining({ content: 'Alice is allergic to peanuts', tags: ['health'], scored: true })]);
    expect(unscored(viaMcp)).toEqual(unscored(viaAi));
    expect(unscored(viaLangchain)).toEqual(unscored(viaAi));

    const bad = { query: 'peanuts', userId: 'bob' };
    expect(await asSchema(aiTools({ memory, namespace: alice }).search_memories.inputSchema).validate!(bad)).toMatchObject({ success: false });
    expect(await client.callTool({ name: 'search_memories', arguments: bad })).toMatchObject({ isError: true });
    await expect(search.invoke(bad)).rejects.toThrow(/userId|Unrecognized/);
  });
});
