import { FACT_KEY_RULE, MAX_FACT_KEY_BYTES, ZeromemError, isFactKey, type RememberInput, type UpdatePatch } from '@zeromem/core';
import { z } from 'zod';
import { writeOptions, type BoundMemory } from './bound-memory.ts';
import { memoryView, memoryViewSchema } from './memory-view.ts';

/**
 * What a tool does to the memory, as MCP's tool annotations say it. Nothing here reaches
 * outside the device (`openWorldHint: false`).
 */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** One memory tool, framework-neutral: every adapter renders these fields as they are. */
export interface MemoryTool<Input extends z.ZodObject = z.ZodObject, Output extends z.ZodObject = z.ZodObject> {
  name: string;
  /** A short human title (MCP clients show it). */
  title: string;
  /** What the model reads to decide when to call it. */
  description: string;
  /** Strict: an unknown field (a namespace, a user id) fails validation and nothing runs. */
  inputSchema: Input;
  outputSchema: Output;
  annotations: ToolAnnotations;
  /** It forgets for good: adapters ask the user first where their framework can (the AI SDK's approval). */
  forgets: boolean;
  /**
   * Runs the call in the bound namespace. It checks `input` against `inputSchema` itself
   * (INVALID_INPUT, nothing runs), whether or not the adapter validated it. Throws ZeromemError.
   */
  run(bound: BoundMemory, input: z.output<Input>): Promise<z.output<Output>>;
}

/** Most results of one `search_memories` call, and the default. */
const SEARCH_LIMIT = { max: 100, default: 10 } as const;
/** Most memories of one `list_memories` page, and the default. */
const LIST_LIMIT = { max: 100, default: 20 } as const;
/** Longest query text, in characters. */
const MAX_QUERY_LENGTH = 32_768;
/** Largest `build_context` budget, in tokens, and the default. */
const CONTEXT_BUDGET = { max: 100_000, default: 1000 } as const;

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const ADD: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false }; // the same text again returns the stored memory
const CHANGE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

const id = z.string().min(1).max(128).describe('The memory id, as returned by add_memory, search_memories or list_memories');
const tags = z.array(z.string().min(1).max(128)).max(32).describe('Short labels to group memories, e.g. "preference"');
const anyTags = tags.describe('Only memories with at least one of these tags');
const metadata = z.record(z.string(), z.unknown()).describe('Extra JSON fields to keep with the memory');
const importance = z.number().min(0).max(1).describe('How much this matters, 0..1 (default 0.5)');
const query = z.string().min(1).max(MAX_QUERY_LENGTH);

const contextReportSchema = z.object({
  tokenizer: z.string(),
  budget: z.number().int(),
  tokens: z.number().int().describe('Tokens of the context: what injecting it costs'),
  included: z.array(z.object({ layer: z.string(), id: z.string(), score: z.number().nullable(), tokens: z.number().int() })),
  dropped: z.number().int().describe('Candidates left out for the budget, a quota or as duplicates'),
  fullHistoryTokens: z.number().int().nullable().describe('Tokens of every memory of the namespace: what the context saves'),
});

/**
 * The typed catalog entry: `run`'s input and output follow the schemas. `run` checks its
 * input against the strict schema itself, so a caller that skips the adapter's validation
 * (a hand-written tool loop calling `execute` or `run`) cannot pass a `namespace`, a
 * `userId` or any other field to core: the bound namespace is the only one a tool reaches.
 */
function memoryTool<Input extends z.ZodObject, Output extends z.ZodObject>(tool: MemoryTool<Input, Output>): MemoryTool<Input, Output> {
  const run = tool.run;
  return Object.freeze({ ...tool, run: (bound: BoundMemory, input: z.output<Input>) => run(bound, checkedInput(tool, input)) });
}

/** The input as the tool's schema reads it, or INVALID_INPUT naming every field to fix (an unknown field by its name). */
function checkedInput<Input extends z.ZodObject>(tool: Pick<MemoryTool<Input>, 'name' | 'inputSchema'>, input: unknown): z.output<Input> {
  const parsed = tool.inputSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.flatMap((issue) => {
    const at = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: at ? `${at}.${key}` : key, message: 'is not an input of this tool (the namespace is bound by the application)' }));
    return [{ path: at, message: issue.message }];
  });
  throw new ZeromemError('INVALID_INPUT', `Invalid ${tool.name} input: ${issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join('; ')}`, { issues });
}

const addMemory = memoryTool({
  name: 'add_memory',
  title: 'Add memory',
  description: 'Store a fact worth remembering across conversations (a preference, a decision, a detail about the user). One fact per call. Storing the same text again returns the existing memory. For a fact that replaces an earlier one (a new address, a new way to be reached), use set_fact.',
  inputSchema: z.object({ content: z.string().min(1).describe('The fact, as one self-contained sentence'), tags: tags.optional(), metadata: metadata.optional(), importance: importance.optional() }).strict(),
  outputSchema: z.object({
    id: z.string(),
    deduplicated: z.boolean(),
    memory: memoryViewSchema,
    suggestedUpdates: z
      .array(z.object({ id: z.string(), reason: z.string() }))
      .optional()
      .describe('Stored memories this one may be a new value of: if it replaces one, forget that one or keep the fact with set_fact'),
  }),
  annotations: ADD,
  forgets: false,
  run: async ({ memory, namespace, ...bound }, input) => {
    // The agent is the one who can confirm a suggested update, so this tool always asks for them.
    const result = await memory.remember({ ...(input as Omit<RememberInput, 'namespace'>), namespace }, { ...writeOptions(bound), suggestUpdates: true }); // core checks metadata is JSON
    const suggested = result.suggestedUpdates.map(({ id, reason }) => ({ id, reason }));
    return { id: result.id, deduplicated: result.deduplicated, memory: memoryView(result.record), ...(suggested.length ? { suggestedUpdates: suggested } : {}) };
  },
});

const searchMemories = memoryTool({
  name: 'search_memories',
  title: 'Search memories',
  description:
    'Find stored memories relevant to a question or topic, best first, each with its relevance (0..1, the same scale for every question). ' +
    'No results (with a reason) means nothing stored is about it: answer without memory rather than guess.',
  inputSchema: z
    .object({
      query: query.describe('What to look for, in natural language'),
      limit: z.number().int().min(1).max(SEARCH_LIMIT.max).optional().describe(`How many results, default ${SEARCH_LIMIT.default}`),
      tags: anyTags.optional(),
    })
    .strict(),
  outputSchema: z.object({
    results: z.array(memoryViewSchema.extend({ relevance: z.number().describe('0..1: how much of the question this memory is evidence for'), score: z.number().describe('Ranking score: orders these results only') })),
    reason: z.string().optional().describe('Only when there are no results: why ("nothing relevant: ...")'),
  }),
  annotations: READ,
  forgets: false,
  run: async ({ memory, namespace }, { query: text, limit, tags: any }) => {
    const { hits, reason } = await memory.recall(namespace, text, { k: limit ?? SEARCH_LIMIT.default, ...(any ? { filters: { tags: { any } } } : {}) });
    return { results: hits.map((hit) => ({ ...memoryView(hit.record), relevance: hit.relevance, score: hit.score })), ...(reason ? { reason } : {}) };
  },
});

const getMemory = memoryTool({
  name: 'get_memory',
  title: 'Get memory',
  description: 'Read one memory by its id.',
  inputSchema: z.object({ id }).strict(),
  outputSchema: z.object({ memory: memoryViewSchema }),
  annotations: READ,
  forgets: false,
  run: async ({ memory, namespace }, { id: memoryId }) => {
    const record = await memory.get(namespace, memoryId);
    if (!record) throw new ZeromemError('NOT_FOUND', `No memory with id ${memoryId}: use search_memories or list_memories to find ids.`);
    return { memory: memoryView(record) };
  },
});

const listMemories = memoryTool({
  name: 'list_memories',
  title: 'List memories',
  description: 'List stored memories, newest first, a page at a time.',
  inputSchema: z
    .object({
      limit: z.number().int().min(1).max(LIST_LIMIT.max).optional().describe(`Memories per page, default ${LIST_LIMIT.default}`),
      cursor: z.string().optional().describe('nextCursor of the previous page'),
      tags: anyTags.optional(),
    })
    .strict(),
  outputSchema: z.object({ memories: z.array(memoryViewSchema), nextCursor: z.string().nullable() }),
  annotations: READ,
  forgets: false,
  run: async ({ memory, namespace }, { limit, cursor, tags: any }) => {
    const page = await memory.list(namespace, { limit: limit ?? LIST_LIMIT.default, ...(cursor ? { cursor } : {}), ...(any ? { tags: { any } } : {}) });
    return { memories: page.items.map(memoryView), nextCursor: page.nextCursor };
  },
});

const updateMemory = memoryTool({
  name: 'update_memory',
  title: 'Update memory',
  description: 'Correct a stored memory in place (a typo, tags, importance). Give its id and only the fields to change; tags and metadata are replaced whole. For something about the user that changed over time, use set_fact instead: it keeps when the earlier value held.',
  inputSchema: z.object({ id, content: z.string().min(1).optional().describe('The new text'), tags: tags.optional(), metadata: metadata.optional(), importance: importance.optional() }).strict(),
  outputSchema: z.object({ memory: memoryViewSchema }),
  annotations: CHANGE,
  forgets: false,
  run: async ({ memory, namespace, ...bound }, { id: memoryId, ...patch }) => ({ memory: memoryView(await memory.update(namespace, memoryId, patch as UpdatePatch, writeOptions(bound))) }),
});

const deleteMemory = memoryTool({
  name: 'delete_memory',
  title: 'Delete memory',
  description: 'Forget one memory for good, by its id.',
  inputSchema: z.object({ id }).strict(),
  outputSchema: z.object({ id: z.string(), deleted: z.boolean() }),
  annotations: CHANGE,
  forgets: true,
  run: async ({ memory, namespace, ...bound }, { id: memoryId }) => ({ id: memoryId, deleted: await memory.forget(namespace, memoryId, writeOptions(bound)) }),
});

const deleteAllMemories = memoryTool({
  name: 'delete_all_memories',
  title: 'Delete all memories',
  description: 'Forget every memory of this memory space (this user) for good. Only when the user asks for it.',
  inputSchema: z.object({}).strict(),
  outputSchema: z.object({ deleted: z.number().int() }),
  annotations: CHANGE,
  forgets: true,
  run: async ({ memory, namespace, ...bound }) => ({ deleted: await memory.forgetNamespace(namespace, writeOptions(bound)) }),
});

/** A fact key as set_fact takes it: core's rule (core checks it again, with the same words). */
const factKey = z
  .string()
  .min(1)
  .max(MAX_FACT_KEY_BYTES)
  .refine(isFactKey, `key ${FACT_KEY_RULE}`)
  .describe(`What the fact is about, the same key every time the same thing changes, e.g. "contact.channel", "home.city", "phone.plan"; it ${FACT_KEY_RULE}`);
/** A time a model sends: an ISO 8601 date or date-time (core reads it as it reads createdAt). */
const isoTime = z.string().min(1).max(64);

const setFact = memoryTool({
  name: 'set_fact',
  title: 'Set fact',
  description:
    'Record the current value of something about the user that can change (how to reach them, where they live, their plan), under a stable key. ' +
    'It replaces the earlier fact of that key: the earlier one is kept as history but no longer recalled. ' +
    'Use set_fact instead of add_memory whenever new information supersedes old (the user moved, switched plans, now prefers e-mail); use add_memory for facts that add to what is known. ' +
    'Setting the same key to the same text again changes nothing.',
  inputSchema: z
    .object({
      key: factKey,
      content: z.string().min(1).describe('The fact as it holds now, as one self-contained sentence, e.g. "The user prefers e-mail over phone calls."'),
      validFrom: isoTime.optional().describe('When it became true, ISO 8601 (e.g. "2026-03-04"), if not now: for something learned late'),
      tags: tags.optional(),
      importance: importance.optional(),
    })
    .strict(),
  outputSchema: z.object({
    id: z.string(),
    closed: z.array(z.string()).describe('Ids of the earlier facts of this key it replaced'),
    memory: memoryViewSchema,
  }),
  annotations: ADD, // nothing is lost: the replaced fact stays as history
  forgets: false,
  run: async ({ memory, namespace, ...bound }, { key, content, validFrom, ...rest }) => {
    const input: RememberInput = { ...(rest as Pick<RememberInput, 'tags' | 'importance'>), key, content, ...(validFrom === undefined ? {} : { validFrom }), namespace };
    const result = await memory.remember(input, writeOptions(bound));
    return { id: result.id, closed: result.closed, memory: memoryView(result.record) };
  },
});

const getProfile = memoryTool({
  name: 'get_profile',
  title: 'Get profile',
  description:
    "The user's current profile: every fact recorded with set_fact, the one that holds now for each key, with the date it holds since. " +
    'Read it before acting on how to reach the user, where they live or anything else that changes; earlier values are not in it. With asOf, the profile as it was then.',
  inputSchema: z.object({ asOf: isoTime.optional().describe('A past time, ISO 8601: the facts that held then') }).strict(),
  outputSchema: z.object({
    facts: z.array(z.object({ key: z.string(), content: z.string(), id: z.string(), validFrom: z.string().describe('ISO 8601: since when it holds') })).describe('Sorted by key'),
  }),
  annotations: READ,
  forgets: false,
  run: async ({ memory, namespace }, { asOf }) => {
    const entries = await memory.profile(namespace, asOf === undefined ? {} : { asOf });
    return { facts: entries.map((entry) => ({ key: entry.key, content: entry.content, id: entry.id, validFrom: new Date(entry.validFrom).toISOString() })) };
  },
});

const buildContext = memoryTool({
  name: 'build_context',
  title: 'Build context',
  description: 'The memories most relevant to a question, as one block of text that fits a token budget, with a report of what it holds and costs.',
  inputSchema: z
    .object({
      query: query.optional().describe('What the context is for; default: the latest memories'),
      budget: z.number().int().min(1).max(CONTEXT_BUDGET.max).optional().describe(`Most tokens of the context, default ${CONTEXT_BUDGET.default}`),
    })
    .strict(),
  outputSchema: z.object({ text: z.string(), report: contextReportSchema }),
  annotations: READ,
  forgets: false,
  run: async ({ memory, namespace }, { query: text, budget }) => {
    const { text: context, report } = await memory.buildContext({ namespace, budget: budget ?? CONTEXT_BUDGET.default, ...(text ? { query: text } : {}) });
    return {
      text: context,
      report: {
        tokenizer: report.tokenizer,
        budget: report.budget,
        tokens: report.tokens,
        included: report.included.map(({ layer, id: itemId, score, tokens }) => ({ layer, id: itemId, score, tokens })),
        dropped: report.dropped.length,
        fullHistoryTokens: report.fullHistoryTokens,
      },
    };
  },
});

/**
 * zeromem's memory tools, named as mem0's (plus `build_context`, and the keyed facts'
 * `set_fact` and `get_profile`), in the order adapters list them. Each adapter renders every one with these names, descriptions, schemas and
 * annotations, and runs `run`; no tool takes a namespace, and none calls an LLM.
 */
export const MEMORY_TOOLS = Object.freeze({
  add_memory: addMemory,
  search_memories: searchMemories,
  get_memory: getMemory,
  list_memories: listMemories,
  update_memory: updateMemory,
  delete_memory: deleteMemory,
  delete_all_memories: deleteAllMemories,
  build_context: buildContext,
  set_fact: setFact,
  get_profile: getProfile,
});

/** The name of a catalog tool. */
export type MemoryToolName = keyof typeof MEMORY_TOOLS;
/** What the model sends to tool `Name` (after defaults, as `run` receives it). */
export type MemoryToolInput<Name extends MemoryToolName> = z.output<(typeof MEMORY_TOOLS)[Name]['inputSchema']>;
/** What tool `Name` returns. */
export type MemoryToolOutput<Name extends MemoryToolName> = z.output<(typeof MEMORY_TOOLS)[Name]['outputSchema']>;
