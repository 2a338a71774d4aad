/**
 * The rule that ties a README's `console.log` lines to what they print: a line
 * `console.log(…); // what it prints` is checked; `…` in the comment stands for any text.
 */

const CHECKED = /^(\s*)console\.log\((.*)\);\s*\/\/ (.+)$/;
/** A `console.log(` on a line that ends in a comment: it looks checked, so it must be one. */
const LOOKS_CHECKED = /console\.log\(.*\/\/ .+$/;

/**
 * The example with each checked `console.log(` turned into `__readmeLog(<n>, `, and the
 * comment of check n at index n. A log inside a statement (`if (x) console.log(y); // z`)
 * would not be checked though it looks so: it is an error, so that no example only seems checked.
 */
export function checkedLogs(code: string): { code: string; expected: string[] } {
  const expected: string[] = [];
  const lines = code.split('\n').map((line) => {
    const match = CHECKED.exec(line);
    if (!match) {
      if (LOOKS_CHECKED.test(line)) throw new Error(`a console.log with a "// what it prints" comment must be a statement of its own line: ${line.trim()}`);
      return line;
    }
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
