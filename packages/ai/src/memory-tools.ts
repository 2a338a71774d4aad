import { ZeromemError, type Memory, type Namespace, type RememberInput, type UpdatePatch } from '@zeromem/core';
import { tool, type Tool } from 'ai';
import { z } from 'zod';
import { bindNamespace } from './bound-namespace.ts';
import { memoryView, memoryViewSchema, type MemoryView } from './memory-view.ts';

/** Options of {@link memoryTools}. */
export interface MemoryToolsOptions {
  /** The open memory (`openMemory()` of `@zeromem/core`). */
  memory: Memory;
  /**
   * The one namespace every tool reads and writes, chosen by you (the signed-in user,
   * your agent). No tool takes a namespace, so the model can never reach another one.
   */
  namespace: Namespace;
  /**
   * Ask the user before `delete_memory` and `delete_all_memories` run (the AI SDK's
   * tool approval: the call stops with a `tool-approval-request`). Default true.
   * A `toolApproval` you pass to `generateText`/`ToolLoopAgent` takes precedence.
   */
  forgetNeedsApproval?: boolean;
  /** Who acts, for zeromem's audit log. Default: the memory's actor. */
  actor?: string;
}

const id = z.string().min(1).max(128).describe('The memory id, as returned by add_memory, search_memories or list_memories');
const tags = z.array(z.string().min(1).max(128)).max(32).describe('Short labels to group memories, e.g. "preference"');
const metadata = z.record(z.string(), z.unknown()).describe('Extra JSON fields to keep with the memory');
const importance = z.number().min(0).max(1).describe('How much this matters, 0..1 (default 0.5)');

type Tags = string[] | undefined;
type Fields = { tags?: Tags; metadata?: Record<string, unknown> | undefined; importance?: number | undefined };

/** The tool set {@link memoryTools} returns: inputs and outputs as the model sees them. */
export type MemoryTools = {
  add_memory: Tool<{ content: string } & Fields, { id: string; deduplicated: boolean; memory: MemoryView }>;
  search_memories: Tool<{ query: string; limit?: number | undefined; tags?: Tags }, { results: Array<MemoryView & { score: number }> }>;
  get_memory: Tool<{ id: string }, { memory: MemoryView }>;
  list_memories: Tool<{ limit?: number | undefined; cursor?: string | undefined; tags?: Tags }, { memories: MemoryView[]; nextCursor: string | null }>;
  update_memory: Tool<{ id: string; content?: string | undefined } & Fields, { memory: MemoryView }>;
  delete_memory: Tool<{ id: string }, { id: string; deleted: boolean }>;
  delete_all_memories: Tool<Record<string, never>, { deleted: number }>;
};

/**
 * Memory tools for the Vercel AI SDK, named as mem0's: `add_memory`, `search_memories`,
 * `get_memory`, `list_memories`, `update_memory`, `delete_memory`, `delete_all_memories`.
 * Every tool works in the namespace you bind here; inputs are strict objects, so a model
 * that sends a namespace, a user id or any unknown field gets a validation error and
 * nothing runs. The forgetting tools need approval by default. No tool calls an LLM.
 *
 * @example
 * const result = await generateText({
 *   model,
 *   tools: memoryTools({ memory, namespace: { userId: 'alice' } }),
 *   stopWhen: stepCountIs(5),
 *   prompt: 'Remember that I prefer window seats.',
 * });
 */
export function memoryTools(options: MemoryToolsOptions): MemoryTools {
  if (typeof options !== 'object' || options === null || typeof options.memory?.recall !== 'function') {
    throw new ZeromemError('INVALID_INPUT', 'memoryTools() needs { memory, namespace }: memory is what openMemory() returned.', { issues: [{ path: 'memory', message: 'must be an open Memory' }] });
  }
  const { memory } = options;
  const namespace = bindNamespace(options.namespace, 'memoryTools()');
  const writeOptions = options.actor === undefined ? {} : { actor: options.actor };
  const forgetNeedsApproval = options.forgetNeedsApproval ?? true;

  return {
    add_memory: tool({
      description: 'Store a fact worth remembering across conversations (a preference, a decision, a detail about the user). One fact per call. Storing the same text again returns the existing memory.',
      inputSchema: z
        .object({
          content: z.string().min(1).describe('The fact, as one self-contained sentence'),
          tags: tags.optional(),
          metadata: metadata.optional(),
          importance: importance.optional(),
        })
        .strict(),
      outputSchema: z.object({ id: z.string(), deduplicated: z.boolean(), memory: memoryViewSchema }),
      execute: async (input) => {
        const result = await memory.remember({ namespace, ...(input as Omit<RememberInput, 'namespace'>) }, writeOptions); // core checks metadata is JSON
        return { id: result.id, deduplicated: result.deduplicated, memory: memoryView(result.record) };
      },
    }),

    search_memories: tool({
      description: 'Find stored memories relevant to a question or topic, best first, each with its relevance score.',
      inputSchema: z
        .object({
          query: z.string().min(1).describe('What to look for, in natural language'),
          limit: z.number().int().min(1).max(50).optional().describe('How many results, default 5'),
          tags: tags.optional().describe('Only memories with at least one of these tags'),
        })
        .strict(),
      outputSchema: z.object({ results: z.array(memoryViewSchema.extend({ score: z.number() })) }),
      execute: async ({ query, limit, tags: anyTags }) => {
        const { hits } = await memory.recall(namespace, query, { k: limit ?? 5, ...(anyTags ? { filters: { tags: { any: anyTags } } } : {}) });
        return { results: hits.map((hit) => ({ ...memoryView(hit.record), score: hit.score })) };
      },
    }),

    get_memory: tool({
      description: 'Read one memory by its id.',
      inputSchema: z.object({ id }).strict(),
      outputSchema: z.object({ memory: memoryViewSchema }),
      execute: async ({ id: memoryId }) => {
        const record = await memory.get(namespace, memoryId);
        if (!record) throw new ZeromemError('NOT_FOUND', `No memory with id ${memoryId}: use search_memories or list_memories to find ids.`);
        return { memory: memoryView(record) };
      },
    }),

    list_memories: tool({
      description: 'List stored memories, newest first, a page at a time.',
      inputSchema: z
        .object({
          limit: z.number().int().min(1).max(100).optional().describe('Memories per page, default 20'),
          cursor: z.string().optional().describe('nextCursor of the previous page'),
          tags: tags.optional().describe('Only memories with at least one of these tags'),
        })
        .strict(),
      outputSchema: z.object({ memories: z.array(memoryViewSchema), nextCursor: z.string().nullable() }),
      execute: async ({ limit, cursor, tags: anyTags }) => {
        const page = await memory.list(namespace, { limit: limit ?? 20, ...(cursor ? { cursor } : {}), ...(anyTags ? { tags: { any: anyTags } } : {}) });
        return { memories: page.items.map(memoryView), nextCursor: page.nextCursor };
      },
    }),

    update_memory: tool({
      description: 'Change a stored memory (for example when a fact changed). Give its id and only the fields to change; tags and metadata are replaced whole.',
      inputSchema: z
        .object({
          id,
          content: z.string().min(1).optional().describe('The new text'),
          tags: tags.optional(),
          metadata: metadata.optional(),
          importance: importance.optional(),
        })
        .strict(),
      outputSchema: z.object({ memory: memoryViewSchema }),
      execute: async ({ id: memoryId, ...patch }) => {
        const record = await memory.update(namespace, memoryId, patch as UpdatePatch, writeOptions);
        return { memory: memoryView(record) };
      },
    }),

    delete_memory: tool({
      description: 'Forget one memory for good, by its id.',
      inputSchema: z.object({ id }).strict(),
      outputSchema: z.object({ id: z.string(), deleted: z.boolean() }),
      needsApproval: forgetNeedsApproval,
      execute: async ({ id: memoryId }) => ({ id: memoryId, deleted: await memory.forget(namespace, memoryId, writeOptions) }),
    }),

    delete_all_memories: tool({
      description: 'Forget every memory of this user (this conversation partner) for good.',
      inputSchema: z.object({}).strict(),
      outputSchema: z.object({ deleted: z.number().int() }),
      needsApproval: forgetNeedsApproval,
      execute: async () => ({ deleted: await memory.forgetNamespace(namespace, writeOptions) }),
    }),
  };
}
