/** Width of a line number in a file view: six characters, right-aligned, as Anthropic's memory tool documents. */
const NUMBER_WIDTH = 6;

/** Most lines of a file a view shows (Anthropic's documented limit). */
export const MAX_LINES = 999_999;

/** A file's text as the memory tool counts lines: split at every `\n` (a final newline ends with an empty line). */
export function linesOf(text: string): string[] {
  return text.split('\n');
}

/** Lines numbered from `first` (1-based): the number right-aligned in six characters, a tab, the line. */
export function numbered(lines: readonly string[], first: number): string {
  return lines.map((line, i) => `${String(first + i).padStart(NUMBER_WIDTH, ' ')}\t${line}`).join('\n');
}
