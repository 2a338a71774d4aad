import { changedSinceSeen, fileToEdit, requireText, type CommandContext } from './command-context.ts';
import type { MemoryCommandOf } from './command.ts';
import { checkPath } from './paths.ts';
import { linesOf, numbered } from './numbered-lines.ts';
import { ToolFailure } from './tool-failure.ts';

/** Lines of context shown around an edit. */
const CONTEXT_LINES = 2;

/**
 * `str_replace`: replaces `old_str`, which must occur exactly once, with `new_str`, as a
 * new version of the file, and shows the edited lines. Applies to the version this
 * session last saw, or is refused with "view again" (changedSinceSeen).
 */
export async function strReplace(ctx: CommandContext, command: MemoryCommandOf<'str_replace'>): Promise<string> {
  const path = checkPath(command.path);
  const state = await ctx.files.state(path);
  const file = fileToEdit(ctx, state, command.path, `Error: The path ${command.path} does not exist. Please provide a valid path.`);
  const { old_str: oldStr, new_str: newStr } = command;
  if (oldStr === '') throw new ToolFailure('Error: old_str is empty: give the exact text to replace, as it appears once in the file.');
  const starts = occurrences(file.text, oldStr);
  if (starts.length === 0) throw new ToolFailure(`No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${command.path}.`);
  if (starts.length > 1) {
    const lines = [...new Set(starts.map((start) => lineAt(file.text, start)))];
    throw new ToolFailure(`No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines: ${lines.join(', ')}. Please ensure it is unique`);
  }
  const text = requireText(file.text.slice(0, starts[0]) + newStr + file.text.slice(starts[0]! + oldStr.length), command.path, 'This replacement');
  const version = await ctx.files.write(path, text, file.basis);
  if (version === undefined) throw changedSinceSeen(command.path);
  ctx.seen.saw(path, version, true);
  const lines = linesOf(text);
  const first = Math.max(1, lineAt(text, starts[0]!) - CONTEXT_LINES);
  const last = Math.min(lines.length, lineAt(text, starts[0]!) + linesOf(newStr).length - 1 + CONTEXT_LINES);
  return `The memory file has been edited. Here is the snippet showing the change (with line numbers):\n${numbered(lines.slice(first - 1, last), first)}`;
}

/** Where `needle` starts in `text`, overlapping occurrences counted. */
function occurrences(text: string, needle: string): number[] {
  const starts: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) starts.push(at);
  return starts;
}

/** The 1-based line of a character offset. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) line += 1;
  return line;
}
