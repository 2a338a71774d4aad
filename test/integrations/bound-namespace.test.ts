/**
 * The bound namespace wins whatever a tool's input holds (issue 29 item 12). A hand-written
 * tool loop calls `execute` (AI SDK) or the catalog's `run` directly, with no schema
 * validation in front: a `namespace` or `userId` in the input must neither write to nor
 * read from another namespace. Every tool of the catalog refuses such input
 * (INVALID_INPUT, nothing runs), through the catalog and through each adapter's entry point.
 */
import 'fake-indexeddb/auto';
import { memoryTools as aiTools } from '@zeromem/ai';
import { isZeromemError, openMemory, type Memory } from '@zeromem/core';
import { memoryTools as langchainTools } from '@zeromem/langchain';
import { MEMORY_TOOLS, bindMemory, type MemoryTool } from '@zeromem/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const alice = { userId: 'alice' };
const bob = { userId: 'bob' };
let memory: Memory;
let aliceId: string;
let bobId: string;

/** A valid input of each tool; `id` is filled in per test. */
function validInputs(): Record<string, Record<string, unknown>> {
  return {
    add_memory: { content: 'Bob was here' },
    search_memories: { query: 'secret' },
    get_memory: { id: bobId },
    list_memories: {},
    update_memory: { id: aliceId, content: 'Bob was here' },
    delete_memory: { id: bobId },
    delete_all_memories: {},
    build_context: { query: 'secret' },
    set_fact: { key: 'home.city', content: 'Bob lives in Paris' },
    get_profile: {},
  };
}

/** What each namespace holds, as export lines without their header (its time changes). */
async function snapshot(): Promise<string[]> {
  const lines = async (userId: string) => (await memory.exportJsonl({ userId })).trimEnd().split('\n').slice(1);
  return [...(await lines('alice')), ...(await lines('bob'))];
}

/** The stray fields a tool loop may pass on from a model: each alone, then both. */
const STRAY: Array<Record<string, unknown>> = [{ namespace: bob }, { userId: 'bob' }, { namespace: bob, userId: 'bob', agentId: 'x' }];

/** Calls `call` with each stray variant of `input`: every one is INVALID_INPUT naming the stray fields. */
async function expectRefused(call: (input: Record<string, unknown>) => Promise<unknown>, input: Record<string, unknown>, tool: string): Promise<void> {
  for (const stray of STRAY) {
    let error: unknown;
    try {
      await call({ ...input, ...stray });
    } catch (err) {
      error = err;
    }
    expect(isZeromemError(error) ? error.code : error, `${tool} with ${Object.keys(stray)}`).toBe('INVALID_INPUT');
    expect(isZeromemError(error) && error.details.issues?.map((issue) => issue.path).sort(), tool).toEqual(Object.keys(stray).sort());
  }
}

beforeAll(async () => {
  memory = await openMemory({ name: `bound-namespace-${crypto.randomUUID()}` });
  aliceId = (await memory.remember({ namespace: alice, content: 'Alice keeps a secret diary' })).id;
  bobId = (await memory.remember({ namespace: bob, content: 'Bob keeps a secret too' })).id;
  await memory.remember({ namespace: bob, key: 'home.city', content: 'Bob lives in Rome' });
});
afterAll(() => memory.close());

describe('the bound namespace wins whatever the input holds', () => {
  it('the catalog: every tool refuses a namespace or userId in its input, called directly, and nothing is written', async () => {
    const bound = bindMemory({ memory, namespace: alice }, 'test');
    const before = await snapshot();
    for (const [name, input] of Object.entries(validInputs())) {
      const tool = (MEMORY_TOOLS as Record<string, MemoryTool>)[name]!;
      await expectRefused((hostile) => tool.run(bound, hostile), input, name);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('@zeromem/ai: execute called without the SDK (a hand-written loop) refuses them too', async () => {
    const tools = aiTools({ memory, namespace: alice, forgetNeedsApproval: false }) as unknown as Record<string, { execute: (input: unknown, options: unknown) => Promise<unknown> }>;
    const before = await snapshot();
    for (const [name, input] of Object.entries(validInputs())) {
      await expectRefused((hostile) => tools[name]!.execute(hostile, { toolCallId: name, messages: [] }), input, name);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('@zeromem/langchain: the tool function called directly refuses them too', async () => {
    const tools = langchainTools({ memory, namespace: alice }) as unknown as Array<{ name: string; func: (input: unknown) => Promise<unknown> }>;
    const before = await snapshot();
    const inputs = validInputs();
    for (const tool of tools) await expectRefused((hostile) => tool.func(hostile), inputs[tool.name]!, tool.name);
    expect(await snapshot()).toEqual(before);
  });

  it('the same calls without the stray fields work in the bound namespace only', async () => {
    const bound = bindMemory({ memory, namespace: alice }, 'test');
    const added = (await MEMORY_TOOLS.add_memory.run(bound, { content: 'Alice likes tea' })) as { id: string };
    expect(await memory.get(alice, added.id)).toMatchObject({ content: 'Alice likes tea' });
    await expect(MEMORY_TOOLS.get_memory.run(bound, { id: bobId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
