import { z } from 'zod';

const path = z.string().describe('A path under /memories, e.g. /memories/notes.md');

/**
 * The input of Anthropic's memory tool (`memory_20250818`): one of its six commands, as
 * the model sends it. Strict: an unknown field (a namespace, a user id) is refused and
 * nothing runs; the namespace is the one the tool was created for.
 */
export const memoryCommandSchema = z.discriminatedUnion('command', [
  z.object({ command: z.literal('view'), path, view_range: z.tuple([z.number().int(), z.number().int()]).optional() }).strict(),
  z.object({ command: z.literal('create'), path, file_text: z.string() }).strict(),
  z.object({ command: z.literal('str_replace'), path, old_str: z.string(), new_str: z.string() }).strict(),
  z.object({ command: z.literal('insert'), path, insert_line: z.number().int(), insert_text: z.string() }).strict(),
  z.object({ command: z.literal('delete'), path }).strict(),
  z.object({ command: z.literal('rename'), old_path: path, new_path: path }).strict(),
]);

/** One memory tool command (see {@link memoryCommandSchema}). */
export type MemoryCommand = z.infer<typeof memoryCommandSchema>;
/** The command `Name` of {@link MemoryCommand}. */
export type MemoryCommandOf<Name extends MemoryCommand['command']> = Extract<MemoryCommand, { command: Name }>;

/**
 * Anthropic's client-side memory tool, as the hosts declare it: the Messages API knows its
 * name, description and schema, so an adapter sends only `type` and `name`
 * (`anthropic.tools.memory_20250818` in the AI SDK, `memory_20250818` in `@langchain/anthropic`).
 */
export const ANTHROPIC_MEMORY_TOOL = Object.freeze({ type: 'memory_20250818', name: 'memory', beta: 'context-management-2025-06-27' } as const);

/** The command as the schema reads it, or the text telling the model what to fix. */
export function parseCommand(input: unknown): { ok: true; command: MemoryCommand } | { ok: false; text: string } {
  const parsed = memoryCommandSchema.safeParse(input);
  if (parsed.success) return { ok: true, command: parsed.data };
  const issues = parsed.error.issues.flatMap((issue) => {
    const at = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => `${at ? `${at}.` : ''}${key}: is not an input of the memory tool`);
    return [`${at || 'command'}: ${issue.message}`];
  });
  return { ok: false, text: `Error: Invalid memory tool input (${issues.join('; ')}). Commands: view {path, view_range?}, create {path, file_text}, str_replace {path, old_str, new_str}, insert {path, insert_line, insert_text}, delete {path}, rename {old_path, new_path}.` };
}
