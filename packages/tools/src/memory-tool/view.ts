import type { CommandContext } from './command-context.ts';
import type { MemoryCommandOf } from './command.ts';
import { directoryListing } from './listing.ts';
import { MEMORY_ROOT, checkPath } from './paths.ts';
import { MAX_LINES, linesOf, numbered } from './numbered-lines.ts';
import { ToolFailure } from './tool-failure.ts';

/**
 * `view`: a file with numbered lines (all, or `view_range` [first, last], last -1 for the
 * end), or a directory listing up to two levels deep with sizes. `/memories` always
 * exists (empty, it lists only itself); another directory exists while a file is in it.
 * Viewing a file records its version as the one this session's edits apply to.
 */
export async function view(ctx: CommandContext, command: MemoryCommandOf<'view'>): Promise<string> {
  const path = checkPath(command.path);
  if (path !== MEMORY_ROOT) {
    const state = await ctx.files.state(path);
    const { file } = state;
    if (file) {
      const lines = linesOf(file.text);
      if (lines.length > MAX_LINES) throw new ToolFailure(`File ${command.path} exceeds maximum line limit of 999,999 lines.`);
      const [first, last] = rangeOf(command, lines.length);
      const mine = ctx.seen.wrote(path);
      ctx.seen.saw(path, file.version);
      const shown = `Here's the content of ${command.path} with line numbers:\n${numbered(lines.slice(first - 1, last), first)}`;
      return mine !== undefined && !state.buildsOn(mine) ? `${supersededNote(command.path)}\n${shown}` : shown;
    }
  }
  const files = await ctx.files.filesUnder(path);
  if (path !== MEMORY_ROOT && files.length === 0) throw new ToolFailure(`The path ${command.path} does not exist. Please provide a valid path.`);
  if (command.view_range) throw new ToolFailure(`Error: view_range is for files, and ${command.path} is a directory.`);
  return directoryListing(path, files);
}

/**
 * Said before a file whose text left aside this session's last edit of it: another agent
 * or device edited the same version at the same time (before the sync brought either edit
 * to the other) and its edit is the file now. Nothing is lost: the edit is in the history.
 */
function supersededNote(path: string): string {
  return `Note: your last edit of ${path} is not in it: another agent or device edited the same version at the same time, and the file now holds their edit (yours is kept in the file's history). Redo your edit on the text below if it still applies.`;
}

/** The 1-based line range to show, checked against the file's `count` lines. */
function rangeOf(command: MemoryCommandOf<'view'>, count: number): [number, number] {
  if (!command.view_range) return [1, count];
  const [first, last] = command.view_range;
  const end = last === -1 ? count : last;
  if (first < 1 || first > count || end < first || end > count) {
    throw new ToolFailure(
      `Error: Invalid view_range [${first}, ${last}]: ${command.path} has ${count} lines, so the range must be [first, last] with 1 <= first <= last <= ${count} (last -1 reads to the end).`,
    );
  }
  return [first, end];
}
