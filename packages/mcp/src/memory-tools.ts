import { ZeromemError, type Memory, type Namespace, type RememberInput, type UpdatePatch } from '@zeromem/core';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { memoryView, memoryViewSchema } from './memory-view.ts';
import { toolCall } from './tool-result.ts';

const id = z.string().min(1).max(128).describe('The memory id, as returned by add_memory, search_memories or list_memories');
const tags = z.array(z.string().min(1).max(128)).max(32).describe('Short labels to group memories, e.g. "preference"');
const metadata = z.record(z.string(), z.unknown()).describe('Extra JSON fields to keep with the memory');
const importance = z.number().min(0).max(1).describe('How much this matters, 0..1 (default 0.5)');
const reportSchema = z.object({
  tokenizer: z.string(),
  budget: z.number().int(),
  tokens: z.number().int().describe('Tokens of the context: what injecting it costs'),
  included: z.array(z.object({ layer: z.string(), id: z.string(), score: z.number().nullable(), tokens: z.number().int() })),
  dropped: z.number().int().describe('Candidates left out for the budget, a quota or as duplicates'),
  fullHistoryTokens: z.number().int().nullable().describe('Tokens of every memory of the namespace: what the context saves'),
});

/** Hints as the official MCP memory server gives them: nothing here reaches outside the device. */
const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const ADD = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false }; // the same text again returns the stored memory
const CHANGE = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

/**
 * Registers the memory tools on an MCP server, all bound to `namespace` (chosen by who
 * starts the server, never by the model: no tool takes a namespace, and inputs are strict).
 * Names as mem0's; every tool has input and output schemas, annotations and returns
 * `structuredContent`. No tool calls an LLM.
 */
export function registerMemoryTools(server: McpServer, memory: Memory, namespace: Readonly<Namespace>, actor: string): void {
  const write = { actor };

  server.registerTool(
    'add_memory',
    {
      title: 'Add memory',
      description: 'Store a fact worth remembering across conversations (a preference, a decision, a detail about the user). One fact per call. Storing the same text again returns the existing memory.',
      inputSchema: z.object({ content: z.string().min(1).describe('The fact, as one self-contained sentence'), tags: tags.optional(), metadata: metadata.optional(), importance: importance.optional() }).strict(),
      outputSchema: z.object({ id: z.string(), deduplicated: z.boolean(), memory: memoryViewSchema }),
      annotations: ADD,
    },
    (input) =>
      toolCall(async () => {
        const result = await memory.remember({ namespace, ...(input as Omit<RememberInput, 'namespace'>) }, write); // core checks metadata is JSON
        return { id: result.id, deduplicated: result.deduplicated, memory: memoryView(result.record) };
      }),
  );

  server.registerTool(
    'search_memories',
    {
      title: 'Search memories',
      description: 'Find stored memories relevant to a question or topic, best first, each with its relevance score.',
      inputSchema: z
        .object({
          query: z.string().min(1).max(32_768).describe('What to look for, in natural language'),
          limit: z.number().int().min(1).max(100).optional().describe('How many results, default 10'),
          tags: tags.optional().describe('Only memories with at least one of these tags'),
        })
        .strict(),
      outputSchema: z.object({ results: z.array(memoryViewSchema.extend({ score: z.number() })) }),
      annotations: READ,
    },
    ({ query, limit, tags: anyTags }) =>
      toolCall(async () => {
        const { hits } = await memory.recall(namespace, query, { k: limit ?? 10, ...(anyTags ? { filters: { tags: { any: anyTags } } } : {}) });
        return { results: hits.map((hit) => ({ ...memoryView(hit.record), score: hit.score })) };
      }),
  );

  server.registerTool(
    'get_memory',
    { title: 'Get memory', description: 'Read one memory by its id.', inputSchema: z.object({ id }).strict(), outputSchema: z.object({ memory: memoryViewSchema }), annotations: READ },
    ({ id: memoryId }) =>
      toolCall(async () => {
        const record = await memory.get(namespace, memoryId);
        if (!record) throw new ZeromemError('NOT_FOUND', `No memory with id ${memoryId}: use search_memories or list_memories to find ids.`);
        return { memory: memoryView(record) };
      }),
  );

  server.registerTool(
    'list_memories',
    {
      title: 'List memories',
      description: 'List stored memories, newest first, a page at a time.',
      inputSchema: z
        .object({
          limit: z.number().int().min(1).max(100).optional().describe('Memories per page, default 20'),
          cursor: z.string().optional().describe('nextCursor of the previous page'),
          tags: tags.optional().describe('Only memories with at least one of these tags'),
        })
        .strict(),
      outputSchema: z.object({ memories: z.array(memoryViewSchema), nextCursor: z.string().nullable() }),
      annotations: READ,
    },
    ({ limit, cursor, tags: anyTags }) =>
      toolCall(async () => {
        const page = await memory.list(namespace, { limit: limit ?? 20, ...(cursor ? { cursor } : {}), ...(anyTags ? { tags: { any: anyTags } } : {}) });
        return { memories: page.items.map(memoryView), nextCursor: page.nextCursor };
      }),
  );

  server.registerTool(
    'update_memory',
    {
      title: 'Update memory',
      description: 'Change a stored memory (for example when a fact changed). Give its id and only the fields to change; tags and metadata are replaced whole.',
      inputSchema: z.object({ id, content: z.string().min(1).optional().describe('The new text'), tags: tags.optional(), metadata: metadata.optional(), importance: importance.optional() }).strict(),
      outputSchema: z.object({ memory: memoryViewSchema }),
      annotations: CHANGE,
    },
    ({ id: memoryId, ...patch }) => toolCall(async () => ({ memory: memoryView(await memory.update(namespace, memoryId, patch as UpdatePatch, write)) })),
  );

  server.registerTool(
    'delete_memory',
    { title: 'Delete memory', description: 'Forget one memory for good, by its id.', inputSchema: z.object({ id }).strict(), outputSchema: z.object({ id: z.string(), deleted: z.boolean() }), annotations: CHANGE },
    ({ id: memoryId }) => toolCall(async () => ({ id: memoryId, deleted: await memory.forget(namespace, memoryId, write) })),
  );

  server.registerTool(
    'delete_all_memories',
    {
      title: 'Delete all memories',
      description: 'Forget every memory of this memory space for good. Only when the user asks for it.',
      inputSchema: z.object({}).strict(),
      outputSchema: z.object({ deleted: z.number().int() }),
      annotations: CHANGE,
    },
    () => toolCall(async () => ({ deleted: await memory.forgetNamespace(namespace, write) })),
  );

  server.registerTool(
    'build_context',
    {
      title: 'Build context',
      description: 'The memories most relevant to a question, as one block of text that fits a token budget, with a report of what it holds and costs.',
      inputSchema: z
        .object({
          query: z.string().min(1).max(32_768).optional().describe('What the context is for; default: the latest memories'),
          budget: z.number().int().min(1).max(100_000).optional().describe('Most tokens of the context, default 1000'),
        })
        .strict(),
      outputSchema: z.object({ text: z.string(), report: reportSchema }),
      annotations: READ,
    },
    ({ query, budget }) =>
      toolCall(async () => {
        const { text, report } = await memory.buildContext({ namespace, budget: budget ?? 1000, ...(query ? { query } : {}) });
        return {
          text,
          report: {
            tokenizer: report.tokenizer,
            budget: report.budget,
            tokens: report.tokens,
            included: report.included.map(({ layer, id: itemId, score, tokens }) => ({ layer, id: itemId, score, tokens })),
            dropped: report.dropped.length,
            fullHistoryTokens: report.fullHistoryTokens,
          },
        };
      }),
  );
}
