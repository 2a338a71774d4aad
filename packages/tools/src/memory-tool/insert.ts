import { changedSinceSeen, fileToEdit, type CommandContext } from './command-context.ts';
import type { MemoryCommandOf } from './command.ts';
import { checkPath } from './paths.ts';
import { linesOf } from './numbered-lines.ts';
import { ToolFailure } from './tool-failure.ts';

/**
 * `insert`: puts `insert_text` after line `insert_line` (0: at the top; the file's line
 * count: at the end), as a new version of the file. One trailing newline of the text is
 * dropped (the line break is the insertion's own). Applies to the version this session
 * last saw, or is refused with "view again".
 */
export async function insert(ctx: CommandContext, command: MemoryCommandOf<'insert'>): Promise<string> {
  const path = checkPath(command.path);
  const state = await ctx.files.state(path);
  const file = fileToEdit(ctx, state, command.path, `Error: The file ${command.path} does not exist`);
  const lines = linesOf(file.text);
  if (command.insert_line < 0 || command.insert_line > lines.length) {
    throw new ToolFailure(`Error: Invalid \`insert_line\` parameter: ${command.insert_line}. It should be within the range of lines of the file: [0, ${lines.length}]`);
  }
  lines.splice(command.insert_line, 0, command.insert_text.replace(/\n$/, ''));
  const version = await ctx.files.write(path, lines.join('\n'), file.basis);
  if (version === undefined) throw changedSinceSeen(command.path);
  ctx.seen.saw(path, version, true);
  return `The file ${command.path} has been edited.`;
}
