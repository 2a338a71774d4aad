import type { CommandContext } from './command-context.ts';
import { requireText } from './command-context.ts';
import type { MemoryCommandOf } from './command.ts';
import { MEMORY_ROOT, ancestorsOf, checkPath, isWithin } from './paths.ts';
import { ToolFailure } from './tool-failure.ts';

/**
 * `create`: a new file (its first version, or the next after it was deleted). An existing
 * file is never overwritten ("already exists": edit it, or delete it first), so of two
 * agents creating one path at once, one creates and the other is told it exists. A path
 * inside a file, or naming a directory, is refused. Directories need no creating.
 */
export async function create(ctx: CommandContext, command: MemoryCommandOf<'create'>): Promise<string> {
  const path = checkPath(command.path);
  if (path === MEMORY_ROOT) throw new ToolFailure(`Error: ${MEMORY_ROOT} is a directory: create a file inside it, e.g. ${MEMORY_ROOT}/notes.md.`);
  const text = requireText(command.file_text, command.path, 'This file_text');
  const [state, files] = await Promise.all([ctx.files.state(path), ctx.files.files()]);
  if (state.file) throw new ToolFailure(`Error: File ${command.path} already exists`);
  if (files.some((file) => isWithin(file.path, path))) throw new ToolFailure(`Error: ${command.path} is a directory: create a file inside it, or choose another name.`);
  const inFile = ancestorsOf(path).find((dir) => files.some((file) => file.path === dir));
  if (inFile) throw new ToolFailure(`Error: ${inFile} is a file, not a directory, so ${command.path} cannot be created: choose another path.`);
  const version = await ctx.files.write(path, text, state.latest);
  if (version === undefined) throw new ToolFailure(`Error: File ${command.path} already exists`); // created meanwhile by another writer
  ctx.seen.saw(path, version, true);
  return `File created successfully at: ${command.path}`;
}
