/**
 * The rule that ties a README's `console.log` lines to what they print: a line
 * `console.log(…); // what it prints` is checked; `…` in the comment stands for any text.
 */

const CHECKED = /^(\s*)console\.log\((.*)\);\s*\/\/ (.+)$/;

/**
 * The example with each checked `console.log(` turned into `__readmeLog(<n>, `, and the
 * comment of check n at index n.
 */
export function checkedLogs(code: string): { code: string; expected: string[] } {
  const expected: string[] = [];
  const lines = code.split('\n').map((line) => {
    const match = CHECKED.exec(line);
    if (!match) return line;
    expected.push(match[3]!.trim());
    return `${match[1]}__readmeLog(${expected.length - 1}, ${match[2]});`;
  });
  return { code: lines.join('\n'), expected };
}

/** True when `printed` is `comment` with each `…` standing for any text (newlines too). */
export function matchesPrinted(printed: string, comment: string): boolean {
  const pattern = comment
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*');
  return new RegExp(`^${pattern}$`).test(printed);
}
