import type { CommandContext } from './command-context.ts';
import type { MemoryCommandOf } from './command.ts';
import { MEMORY_ROOT, ancestorsOf, checkPath, isWithin } from './paths.ts';
import { ToolFailure } from './tool-failure.ts';

/**
 * `rename`: moves a file, or a directory with every file in it, in one transaction. The
 * destination must not exist (never overwritten); the old paths end as by a delete, and
 * each moved file starts a new history at its new path (`metadata.renamedFrom` links them).
 */
export async function rename(ctx: CommandContext, command: MemoryCommandOf<'rename'>): Promise<string> {
  const from = checkPath(command.old_path);
  const to = checkPath(command.new_path);
  if (from === MEMORY_ROOT) throw new ToolFailure(`Error: Cannot rename the ${MEMORY_ROOT} directory itself`);
  if (to === MEMORY_ROOT) throw new ToolFailure(`Error: The destination ${command.new_path} already exists`);
  const [state, files] = await Promise.all([ctx.files.state(from), ctx.files.files()]);
  const sources = state.file ? [from] : files.filter((file) => file.path !== from && isWithin(file.path, from)).map((file) => file.path);
  if (sources.length === 0) throw new ToolFailure(`Error: The path ${command.old_path} does not exist`);
  if (files.some((file) => isWithin(file.path, to))) throw new ToolFailure(`Error: The destination ${command.new_path} already exists`);
  if (isWithin(to, from)) throw new ToolFailure(`Error: Cannot move ${command.old_path} into itself (${command.new_path}).`);
  const inFile = ancestorsOf(to).find((dir) => files.some((file) => file.path === dir));
  if (inFile) throw new ToolFailure(`Error: ${inFile} is a file, not a directory, so nothing can be moved to ${command.new_path}.`);
  const moved = await ctx.files.move(sources.map((source) => [source, to + source.slice(from.length)] as const));
  // What the session saw moves with the file: the new version if it saw the one moved, else
  // the old one it saw, so an edit of text it has not read is still refused.
  const seenBefore = new Map(sources.map((source) => [source, ctx.seen.get(source)]));
  ctx.seen.drop(from);
  for (const source of sources) {
    const target = to + source.slice(from.length);
    const seen = seenBefore.get(source);
    const move = moved.get(target);
    if (seen !== undefined && move) ctx.seen.saw(target, seen === move.moved ? move.version : seen, seen === move.moved);
  }
  return `Successfully renamed ${command.old_path} to ${command.new_path}`;
}
