import { describe, expect, it } from 'vitest';
import { checkedLogs, matchesPrinted } from './printed.ts';

describe('the console.log comment rule', () => {
  it('checks only console.log lines that end in a comment, in order', () => {
    const { code, expected } = checkedLogs(["console.log(a, b); // 1 2", "  console.log('x');", "  console.log(f(1)); // [ 'y' ]"].join('\n'));
    expect(expected).toEqual(['1 2', "[ 'y' ]"]);
    expect(code.split('\n')).toEqual(['__readmeLog(0, a, b);', "  console.log('x');", '  __readmeLog(1, f(1));']);
  });

  it('refuses a log that looks checked but is inside a statement (it would never be checked)', () => {
    expect(() => checkedLogs('if (e) console.log(e.message); // INVALID_INPUT')).toThrow(/statement of its own line/);
  });

  it('matches the whole printed text, … standing for any text', () => {
    expect(matchesPrinted('used My car 0.6412', 'used My car 0.64…')).toBe(true);
    expect(matchesPrinted('used My car 0.6412', 'used My car 0.65…')).toBe(false);
    expect(matchesPrinted('128 null null', '128 null')).toBe(false);
    expect(matchesPrinted('{ a: 1,\n  b: [ 2 ] }', '{ a: 1,… }')).toBe(true);
    expect(matchesPrinted('cost (3)', 'cost (3)')).toBe(true);
  });
});
