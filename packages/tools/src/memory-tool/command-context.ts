import type { MemoryFiles, PathState } from './memory-files.ts';
import type { SeenVersions } from './seen-versions.ts';
import { ToolFailure } from './tool-failure.ts';

/** What a command runs with: the bound namespace's files and what this session has seen of them. */
export interface CommandContext {
  files: MemoryFiles;
  seen: SeenVersions;
}

/**
 * The file an edit applies to: it must exist (Anthropic's wording when it does not) and be
 * the version this session last saw, if it saw one; else the model is told to view it again.
 */
export function fileToEdit(ctx: CommandContext, state: PathState, path: string, missing: string) {
  if (!state.file) throw new ToolFailure(missing);
  const seen = ctx.seen.get(state.file.path);
  if (seen !== undefined && seen !== state.file.version) throw changedSinceSeen(path);
  return state.file;
}

/** The refusal of an edit based on a version that is no longer the latest: nothing was written. */
export function changedSinceSeen(path: string): ToolFailure {
  return new ToolFailure(
    `Error: ${path} was changed by another agent or device since you last viewed it, so nothing was changed. View ${path} again and redo your edit on what it says now.`,
  );
}

/** A file may not be stored blank (core keeps no empty memories): the model deletes it instead. */
export function requireText(text: string, path: string, what: string): string {
  if (text.trim() === '') throw new ToolFailure(`Error: ${what} would leave ${path} empty, and memory files cannot be empty: write some text, or delete the file.`);
  return text;
}
