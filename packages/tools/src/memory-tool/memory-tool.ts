import { systemClock, type Clock, type Memory, type MemoryRecord, type Namespace, type TimeInput } from '@zeromem/core';
import { bindMemory } from '../bound-memory.ts';
import type { CommandContext } from './command-context.ts';
import { parseCommand, type MemoryCommand, type MemoryCommandOf } from './command.ts';
import { create } from './create.ts';
import { del } from './delete.ts';
import { insert } from './insert.ts';
import { MemoryFiles, type MemoryFileEntry } from './memory-files.ts';
import { checkPath } from './paths.ts';
import { rename } from './rename.ts';
import { SeenVersions } from './seen-versions.ts';
import { strReplace } from './str-replace.ts';
import { ToolFailure } from './tool-failure.ts';
import { view } from './view.ts';

/** Options of {@link createMemoryTool}. */
export interface MemoryToolOptions {
  /** The namespace the files live in; the model never chooses it. */
  namespace: Namespace;
  /** Who acts, for zeromem's audit log. Default: the memory's actor. */
  actor?: string;
  /** The memory's clock, if `openMemory` was given one: a delete ends a file at its now. Default: the wall clock. */
  clock?: Clock;
}

/** One version of a memory file (see {@link ClaudeMemoryTool.history}). */
export interface MemoryFileVersion {
  /** The record id of this version. */
  id: string;
  text: string;
  /** Since when this text was the file's (epoch ms). */
  from: number;
  /** Until when (epoch ms, exclusive): the next version's start, or the delete or rename; `null` while it is the file's text. */
  until: number | null;
  /** How the file ended after this version, when it did: `delete`, or `rename` (with `renamedTo`). */
  ended?: 'delete' | 'rename';
  renamedTo?: string;
}

/** Claude's memory tool over zeromem: what {@link createMemoryTool} returns. */
export interface ClaudeMemoryTool {
  /**
   * Runs one command of Anthropic's memory tool (`memory_20250818`) and returns the text
   * for the `tool_result`. A command that cannot run as asked returns the error text the
   * model acts on (Anthropic's wording, e.g. "Error: File ... already exists"); nothing
   * was written. It throws only for what is not the model's to fix (a failing store).
   */
  execute(command: MemoryCommand): Promise<string>;
  /** The files that exist now, or at `asOf` (any time: the directory as it was), sorted by path, with their sizes in bytes. */
  files(options?: { asOf?: TimeInput }): Promise<MemoryFileEntry[]>;
  /** How the file at `path` changed: its versions, oldest first (an empty list when it never existed). */
  history(path: string): Promise<MemoryFileVersion[]>;
}

/**
 * Claude's client-side memory tool, kept by zeromem: every file under `/memories` is a
 * keyed memory of `namespace` (its path the key, its text the content), every edit a new
 * version, so the files are recalled, put in contexts, synced, redacted and forgotten like
 * any memory. Hand `execute` to the host: the AI SDK's
 * `anthropic.tools.memory_20250818({ execute })`, LangChain's `memory_20250818({ execute })`,
 * or your own loop over `tool_use` blocks.
 *
 * Each tool instance is one session: an edit (`str_replace`, `insert`, `delete`) applies
 * to the version of the file this instance last showed or wrote, or the model is told to
 * view it again, so two agents editing one file never overwrite each other. Create one
 * per conversation or agent.
 */
export function createMemoryTool(memory: Memory, options: MemoryToolOptions): ClaudeMemoryTool {
  const bound = bindMemory({ memory, namespace: options?.namespace, actor: options?.actor }, 'createMemoryTool()');
  const files = new MemoryFiles(bound, options.clock ?? systemClock);
  const ctx: CommandContext = { files, seen: new SeenVersions() };
  return Object.freeze({
    async execute(input: MemoryCommand): Promise<string> {
      const parsed = parseCommand(input);
      if (!parsed.ok) return parsed.text;
      try {
        return await run(ctx, parsed.command);
      } catch (err) {
        if (err instanceof ToolFailure) return err.message;
        throw err;
      }
    },
    files: (opts?: { asOf?: TimeInput }) => files.files(opts?.asOf),
    async history(path: string): Promise<MemoryFileVersion[]> {
      return historyOf(await files.versions(checkPath(path)));
    },
  });
}

/** Each command's module, by the name Claude sends. */
const COMMANDS: { [Name in MemoryCommand['command']]: (ctx: CommandContext, command: MemoryCommandOf<Name>) => Promise<string> } = {
  view,
  create,
  str_replace: strReplace,
  insert,
  delete: del,
  rename,
};

function run(ctx: CommandContext, command: MemoryCommand): Promise<string> {
  return (COMMANDS[command.command] as (ctx: CommandContext, command: MemoryCommand) => Promise<string>)(ctx, command);
}

/** A file's versions as its history: oldest first, without the empty interval a delete or rename leaves before its ending version. */
function historyOf(records: readonly MemoryRecord[]): MemoryFileVersion[] {
  return [...records]
    .sort((a, b) => a.validFrom! - b.validFrom! || (a.id < b.id ? -1 : 1))
    .filter((record) => record.validUntil === null || record.validUntil > record.validFrom!)
    .map((record) => {
      const { ended, renamedTo } = record.metadata as { ended?: 'delete' | 'rename'; renamedTo?: string };
      return { id: record.id, text: record.content, from: record.validFrom!, until: record.validUntil, ...(ended ? { ended } : {}), ...(renamedTo ? { renamedTo } : {}) };
    });
}
