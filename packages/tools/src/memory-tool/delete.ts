import { fileToEdit, type CommandContext } from './command-context.ts';
import type { MemoryCommandOf } from './command.ts';
import { MEMORY_ROOT, checkPath } from './paths.ts';
import { ToolFailure } from './tool-failure.ts';

/**
 * `delete`: a file, or a directory with every file in it, in one transaction. The files'
 * history stays (each ends now; `asOf` an earlier time still reads them). A file this
 * session saw at an older version is not deleted: the model is told to view it again.
 */
export async function del(ctx: CommandContext, command: MemoryCommandOf<'delete'>): Promise<string> {
  const path = checkPath(command.path);
  if (path === MEMORY_ROOT) throw new ToolFailure(`Error: Cannot delete the ${MEMORY_ROOT} directory itself`);
  const state = await ctx.files.state(path);
  const paths = state.file ? [fileToEdit(ctx, state, command.path, '').path] : (await ctx.files.filesUnder(path)).map((file) => file.path);
  if (paths.length === 0) throw new ToolFailure(`Error: The path ${command.path} does not exist`);
  await ctx.files.end(paths);
  ctx.seen.drop(path);
  return `Successfully deleted ${command.path}`;
}
