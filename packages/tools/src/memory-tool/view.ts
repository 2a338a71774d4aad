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
    const { file } = await ctx.files.state(path);
    if (file) {
      const lines = linesOf(file.text);
      if (lines.length > MAX_LINES) throw new ToolFailure(`File ${command.path} exceeds maximum line limit of 999,999 lines.`);
      const [first, last] = rangeOf(command, lines.length);
      ctx.seen.saw(path, file.version);
      return `Here's the content of ${command.path} with line numbers:\n${numbered(lines.slice(first - 1, last), first)}`;
    }
  }
  const files = await ctx.files.filesUnder(path);
  if (path !== MEMORY_ROOT && files.length === 0) throw new ToolFailure(`The path ${command.path} does not exist. Please provide a valid path.`);
  if (command.view_range) throw new ToolFailure(`Error: view_range is for files, and ${command.path} is a directory.`);
  return directoryListing(path, files);
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
